#!/usr/bin/env bash
# Fetch the Kubernetes JSON schemas the Helm chart checks validate against (kubeconform, strict),
# from PyPI kubernetes-validate, into DEST (default ~/.cache/shoal/kubernetes-json-schema):
# DEST/<version>-local-strict/<kind>-<group>-<version>.json. The wheel's schemas refer to their
# shared definitions as "/api/_definitions.json", which only kubernetes-validate's own loader
# resolves; they are rewritten to this directory's file:// URL so kubeconform compiles them.
# Idempotent: a version already in place is left alone.
set -euo pipefail
package_version=1.37.0
versions=(v1.30.0 v1.37.0)
dest="${1:-${KUBE_SCHEMA_DIR:-$HOME/.cache/shoal/kubernetes-json-schema}}"

todo=()
for v in "${versions[@]}"; do
  [ -f "$dest/$v-local-strict/service-v1.json" ] || todo+=("$v")
done
[ ${#todo[@]} -eq 0 ] && exit 0

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "kube-schemas: fetching kubernetes-validate==$package_version from PyPI"
python3 -m pip download --quiet --no-deps "kubernetes-validate==$package_version" -d "$tmp"
python3 -m zipfile -e "$tmp"/kubernetes_validate-*.whl "$tmp/wheel"
mkdir -p "$dest"
for v in "${todo[@]}"; do
  src="$tmp/wheel/kubernetes_validate/kubernetes-json-schema/$v-local-strict"
  [ -d "$src" ] || { echo "kube-schemas: $v-local-strict is not in kubernetes-validate $package_version" >&2; exit 1; }
  rm -rf "$dest/$v-local-strict.tmp"
  cp -r "$src" "$dest/$v-local-strict.tmp"
  find "$dest/$v-local-strict.tmp" -name '*.json' -exec sed -i "s#\"/api/_definitions.json#\"file://$dest/$v-local-strict/_definitions.json#g" {} +
  rm -rf "$dest/$v-local-strict"
  mv "$dest/$v-local-strict.tmp" "$dest/$v-local-strict"
  echo "kube-schemas: $dest/$v-local-strict"
done
