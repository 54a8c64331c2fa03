/**
 * The Helm charts (deploy/helm/shoal, deploy/helm/tik) and Dockerfiles (deploy/docker), checked
 * with the real tools: `helm lint --strict`, `helm template` for several value sets, and every
 * rendered manifest validated by kubeconform in strict mode against the Kubernetes JSON schemas of
 * PyPI `kubernetes-validate` (v1.30 and v1.37). Then what the manifests mean is read back: probes,
 * preStop, PDB, HPA, anti-affinity, Secret references, peers — and every flag the charts and the
 * Dockerfiles pass to `serve` is one the built CLI's `--help` lists (a renamed flag would crash-loop
 * every pod).
 *
 * Tools: `helm` and `kubeconform` on PATH or in ~/go/bin (HELM_BIN, KUBECONFORM_BIN), schemas in
 * ~/.cache/shoal/kubernetes-json-schema (KUBE_SCHEMA_DIR); `.ci/run` installs all three. Outside CI
 * a missing one skips this file loudly; with CI=true it fails.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const SHOAL_CHART = resolve('deploy/helm/shoal');
const TIK_CHART = resolve('deploy/helm/tik');
const K8S_VERSIONS = ['v1.30.0', 'v1.37.0'];

function tool(name: string, envVar: string): string | undefined {
  const given = process.env[envVar];
  if (given) return existsSync(given) ? given : undefined;
  for (const dir of [...(process.env.PATH ?? '').split(':'), join(homedir(), 'go', 'bin')]) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

const HELM = tool('helm', 'HELM_BIN');
const KUBECONFORM = tool('kubeconform', 'KUBECONFORM_BIN');
const SCHEMAS = process.env.KUBE_SCHEMA_DIR ?? join(homedir(), '.cache', 'shoal', 'kubernetes-json-schema');
const missing = [
  HELM ? undefined : 'helm (go install helm.sh/helm/v3/cmd/helm@v3.21.4)',
  KUBECONFORM ? undefined : 'kubeconform (go install github.com/yannh/kubeconform/cmd/kubeconform@v0.7.0)',
  K8S_VERSIONS.every((v) => existsSync(join(SCHEMAS, `${v}-local-strict`))) ? undefined : `Kubernetes schemas in ${SCHEMAS} (PyPI kubernetes-validate; see .ci/run)`,
].filter((m): m is string => m !== undefined);

if (missing.length > 0) {
  const message = `helm chart checks need ${missing.join(', ')}; .ci/run installs them`;
  if (process.env.CI === 'true') throw new Error(message);
  process.stderr.write(`\n!!! SKIPPING test/deploy/helm-charts.test.ts: ${message}\n\n`);
}

const work = mkdtempSync(join(tmpdir(), 'helm-charts-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Manifest {
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly spec?: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- read back from YAML
  readonly data?: Record<string, string>;
}

let valuesFiles = 0;
function valuesArgs(values?: object): string[] {
  if (!values) return [];
  const file = join(work, `values-${valuesFiles++}.json`);
  writeFileSync(file, JSON.stringify(values));
  return ['-f', file];
}

/** `helm template`; throws with helm's message when rendering fails. */
function render(chart: string, values?: object): { readonly text: string; readonly docs: Manifest[] } {
  const r = spawnSync(HELM!, ['template', 'rel', chart, ...valuesArgs(values)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`helm template failed: ${r.stderr}`);
  const docs = parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((d): d is Manifest => d !== null);
  return { text: r.stdout, docs };
}

function renderError(chart: string, values: object): string {
  const r = spawnSync(HELM!, ['template', 'rel', chart, ...valuesArgs(values)], { encoding: 'utf8' });
  expect(r.status, 'helm template should refuse these values').not.toBe(0);
  return r.stderr;
}

function kubeconform(text: string, version: string): { readonly status: number | null; readonly stdout: string; readonly stderr: string } {
  const file = join(work, `rendered-${valuesFiles++}.yaml`);
  writeFileSync(file, text);
  const location = join(SCHEMAS, `${version}-local-strict`, '{{ .ResourceKind }}{{ .KindSuffix }}.json');
  return spawnSync(KUBECONFORM!, ['-strict', '-summary', '-schema-location', location, file], { encoding: 'utf8' });
}

/** kubeconform in strict mode (unknown fields are errors) against each Kubernetes version. */
function conform(text: string): void {
  for (const version of K8S_VERSIONS) {
    const r = kubeconform(text, version);
    expect(r.status, `kubeconform ${version}:\n${r.stdout}${r.stderr}`).toBe(0);
    // every document was validated against a schema, none skipped for want of one
    expect(r.stdout).toMatch(/Invalid: 0, Errors: 0, Skipped: 0/);
  }
}

const byKind = (docs: readonly Manifest[], kind: string): Manifest[] => docs.filter((d) => d.kind === kind);
const one = (docs: readonly Manifest[], kind: string): Manifest => {
  const found = byKind(docs, kind);
  expect(found.map((d) => d.kind)).toEqual([kind]);
  return found[0]!;
};

/** The long flags a command's `--help` lists. */
function helpFlags(system: 'shoal' | 'tik', ...args: string[]): Set<string> {
  const text = execFileSync(process.execPath, [resolve(`dist/src/${system}/cli/main.js`), ...args, '--help'], { encoding: 'utf8' });
  return new Set(text.match(/--[a-z][a-z-]*/g) ?? []);
}

const flagsOf = (args: readonly string[]): string[] => args.filter((a) => a.startsWith('--'));

describe.skipIf(missing.length > 0)('helm charts', () => {
  it('pass helm lint --strict', () => {
    for (const chart of [SHOAL_CHART, TIK_CHART]) {
      const r = spawnSync(HELM!, ['lint', '--strict', chart], { encoding: 'utf8' });
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  });

  it('kubeconform itself refuses a manifest with a misspelt field (the check is not vacuous)', () => {
    const { text } = render(TIK_CHART);
    expect(text).toContain('publishNotReadyAddresses: true');
    const r = kubeconform(text.replace('publishNotReadyAddresses: true', 'publishNotReadyAdresses: true'), K8S_VERSIONS[0]!);
    expect(r.status).not.toBe(0);
    expect(r.stdout).toMatch(/additional properties 'publishNotReadyAdresses' not allowed/);
  });

  it('shoal: a Deployment with probes, a preStop drain, PDB, HPA, anti-affinity, config and Secret references', () => {
    const { text, docs } = render(SHOAL_CHART, {
      secretEnv: { SHOAL_REGISTRY_URL: { secret: 'shoal-registry', key: 'url' } },
      env: { SHOAL_LOG_LEVEL: 'warn' },
    });
    conform(text);
    expect(docs.map((d) => d.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Service']);
    const deployment = one(docs, 'Deployment');
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    expect(container.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/live', port: 'http' });
    expect(container.lifecycle.preStop.sleep.seconds).toBe(5);
    // the kubelet must not kill shoal while it drains: preStop + --shutdown-grace < grace period
    const grace = Number(container.args[container.args.indexOf('--shutdown-grace') + 1]);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(5 + grace);
    // the credential is a reference to a Secret, never a value in the manifest
    expect(container.env).toContainEqual({ name: 'SHOAL_REGISTRY_URL', valueFrom: { secretKeyRef: { name: 'shoal-registry', key: 'url' } } });
    expect(container.env).toContainEqual({ name: 'SHOAL_LOG_LEVEL', value: 'warn' });
    expect(pod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey).toBe('kubernetes.io/hostname');
    // the HPA owns the replica count; the Deployment leaves it alone
    expect(deployment.spec.replicas).toBeUndefined();
    const hpa = one(docs, 'HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
    const pdb = one(docs, 'PodDisruptionBudget');
    expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    // the config file the pod reads is the ConfigMap's, and a config change rolls the pods
    const config = one(docs, 'ConfigMap');
    expect(config.data?.['shoal.yaml']).toContain('tenant_url: ${env:SHOAL_REGISTRY_URL}');
    expect(pod.volumes).toContainEqual({ name: 'config', configMap: { name: config.metadata.name } });
    expect(container.args.slice(0, 3)).toEqual(['serve', '--config', '/etc/shoal/shoal.yaml']);
    const changed = render(SHOAL_CHART, { config: 'stateful: {}\n' }).docs;
    expect(one(changed, 'Deployment').spec.template.metadata.annotations['checksum/config']).not.toBe(deployment.spec.template.metadata.annotations['checksum/config']);
  });

  it('shoal: fixed replicas without an HPA, hard anti-affinity, no PDB', () => {
    const { text, docs } = render(SHOAL_CHART, { autoscaling: { enabled: false }, replicaCount: 3, podAntiAffinity: 'hard', podDisruptionBudget: { enabled: false } });
    conform(text);
    expect(byKind(docs, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(byKind(docs, 'PodDisruptionBudget')).toEqual([]);
    const deployment = one(docs, 'Deployment');
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey).toBe('kubernetes.io/hostname');
  });

  it('shoal: refuses values that would break a drain or a rollout, with a message', () => {
    expect(renderError(SHOAL_CHART, { terminationGracePeriodSeconds: 20 })).toMatch(/terminationGracePeriodSeconds must exceed/);
    expect(renderError(SHOAL_CHART, { podAntiAffinity: 'sometimes' })).toMatch(/podAntiAffinity must be soft, hard or empty/);
    expect(renderError(SHOAL_CHART, { autoscaling: { enabled: true, minReplicas: 5, maxReplicas: 2 } })).toMatch(/minReplicas must not exceed/);
    expect(renderError(SHOAL_CHART, { secretEnv: { X: { key: 'k' } } })).toMatch(/secretEnv\.X\.secret is required/);
  });

  it('tik: a StatefulSet with a volume per replica, every replica a peer, tokens from a Secret', () => {
    const { text, docs } = render(TIK_CHART, { processes: { 'review.edn': '{:name "review" :stages []}' } });
    conform(text);
    expect(docs.map((d) => d.kind).sort()).toEqual(['ConfigMap', 'PodDisruptionBudget', 'Service', 'Service', 'StatefulSet']);
    const set = one(docs, 'StatefulSet');
    expect(set.spec.replicas).toBe(3);
    expect(set.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('10Gi');
    const headless = byKind(docs, 'Service').find((s) => s.spec.clusterIP === 'None')!;
    expect(set.spec.serviceName).toBe(headless.metadata.name);
    expect(headless.spec.publishNotReadyAddresses).toBe(true);
    const pod = set.spec.template.spec;
    const container = pod.containers[0];
    const peers = container.args.filter((_: string, i: number) => container.args[i - 1] === '--peer');
    expect(peers).toEqual([0, 1, 2].map((i) => `http://rel-tik-${i}.${headless.metadata.name}:7777`));
    expect(container.args).toContain('--tokens');
    expect(pod.volumes).toContainEqual({ name: 'tokens', secret: { secretName: 'tik-tokens' } });
    expect(container.readinessProbe.httpGet.path).toBe('/ready');
    expect(container.lifecycle.preStop.sleep.seconds).toBe(5);
    expect(pod.initContainers[0].args[0]).toMatch(/init --root \/data\/store && cp \/etc\/tik\/processes\/\*\.edn/);
    expect(one(docs, 'ConfigMap').data).toEqual({ 'review.edn': '{:name "review" :stages []}\n' });
  });

  it('tik: autoscaled replicas peer with every name up to maxReplicas; signed and open write policies', () => {
    const scaled = render(TIK_CHART, { autoscaling: { enabled: true, minReplicas: 3, maxReplicas: 5 }, writePolicy: 'signed' });
    conform(scaled.text);
    const set = one(scaled.docs, 'StatefulSet');
    expect(set.spec.replicas).toBeUndefined();
    const args: string[] = set.spec.template.spec.containers[0].args;
    expect(args.filter((a) => a === '--peer')).toHaveLength(5);
    expect(args.join(' ')).toContain('--admit signed');
    expect(args).not.toContain('--tokens');
    expect(one(scaled.docs, 'HorizontalPodAutoscaler').spec.scaleTargetRef.kind).toBe('StatefulSet');
    const open = render(TIK_CHART, { writePolicy: 'open', allowHosts: ['tik.example.com'] });
    conform(open.text);
    const openArgs: string[] = one(open.docs, 'StatefulSet').spec.template.spec.containers[0].args;
    expect(openArgs).toContain('--open-writes');
    expect(openArgs.join(' ')).toContain('--allow-host tik.example.com');
  });

  it('tik: refuses an unknown write policy and a process file name that is not one', () => {
    expect(renderError(TIK_CHART, { writePolicy: 'anyone' })).toMatch(/writePolicy must be tokens, signed or open/);
    expect(renderError(TIK_CHART, { processes: { '../evil': '{}' } })).toMatch(/must be a file name like review.edn/);
  });

  it('every flag the charts and Dockerfiles pass to serve is one the CLI knows', () => {
    const shoalFlags = helpFlags('shoal', 'serve');
    const tikFlags = new Set([...helpFlags('tik', 'serve'), ...helpFlags('tik')]);
    const shoalArgs: string[] = one(render(SHOAL_CHART).docs, 'Deployment').spec.template.spec.containers[0].args;
    const tikPod = one(render(TIK_CHART, { processes: { 'a.edn': '{}' }, allowHosts: ['h'] }).docs, 'StatefulSet').spec.template.spec;
    for (const flag of flagsOf(shoalArgs)) expect(shoalFlags, `shoal serve ${flag}`).toContain(flag);
    for (const flag of flagsOf(tikPod.containers[0].args)) expect(tikFlags, `tik serve ${flag}`).toContain(flag);
    expect(helpFlags('tik', 'init')).toContain('--root');
    for (const [system, flags] of [['shoal', shoalFlags], ['tik', tikFlags]] as const) {
      const dockerfile = readFileSync(resolve(`deploy/docker/${system}.Dockerfile`), 'utf8');
      const entry = /^ENTRYPOINT \["node", "\/app\/(dist\/src\/[a-z]+\/cli\/main\.js)"\]$/m.exec(dockerfile);
      expect(entry?.[1]).toBe(`dist/src/${system}/cli/main.js`);
      expect(existsSync(resolve(entry![1]!))).toBe(true);
      const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
      expect(cmd[0]).toBe('serve');
      for (const flag of flagsOf(cmd)) expect(flags, `${system} Dockerfile CMD ${flag}`).toContain(flag);
    }
  });
});
