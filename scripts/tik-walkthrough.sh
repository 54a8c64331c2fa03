#!/usr/bin/env bash
# A runnable tour of tik on a temporary store: a process, a ticket, facts from the right and the
# wrong people, a dispute, a repro, the customer's ack, and the derived stage after each step.
# Run after `npm run build`:  bash scripts/tik-walkthrough.sh
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tik() { node "$repo/dist/src/tik/cli/main.js" "$@"; }
step() { printf '\n\033[1m$ tik %s\033[0m\n' "$*"; tik "$@"; }

store="$(mktemp -d "${TMPDIR:-/tmp}/tik-walkthrough.XXXXXX")"
trap 'rm -rf "$store"' EXIT
export TIK_ROOT="$store"

echo "A temporary store at $store"
tik init

# A process: stages are derived from facts, artifacts and time; nobody moves a ticket.
cat > "$store/processes/support-request.edn" <<'EDN'
{:process/id :support-request
 :process/version 1
 :process/roles {:triager {:members []}}
 :process/facts {[:category] [:enum :billing :technical]
                 [:severity] [:enum :low :high]
                 [:resolution :ref] [:string {:min 8}]
                 [:customer :ack] :boolean}
 :process/stages
 [{:stage/id :received :hint "new tickets land here" :guards []}
  {:stage/id :triaged :after [:received] :hint "a triager sets category and severity"
   :guards [[:fact [:category]] [:fact [:severity]] [:signed-by :triager [:category]]]}
  {:stage/id :reproducible :after [:triaged] :hint "attach a reproduction under repro/"
   :guards [[:fact= [:category] :technical] [:artifact "repro/"]]}
  {:stage/id :resolved :after [:triaged] :hint "link the fix"
   :guards [[:fact [:resolution :ref]] [:or [:not [:fact= [:category] :technical]] [:stage-reached :reproducible]]]}
  {:stage/id :closed :after [:resolved] :stage/sticky? true :hint "the customer confirms"
   :guards [[:fact [:customer :ack]]]}]}
EDN
# Who is in a role today (membership lives outside the pinned definition).
echo '{:triager {:members ["seb"]}}' > "$store/roles.edn"

step lint "$store/processes/support-request.edn"

id="$(TIK_ACTOR=customer tik new support-request --title "login broken")"
echo "opened ticket $id"
step status "$id"

echo; echo "# A category from someone outside the triager role exists, but satisfies nothing:"
TIK_ACTOR=rando tik set "$id" category=technical severity=high >/dev/null
step explain "$id"

echo; echo "# The triager's assertion derives :triaged; no transition is ever written:"
TIK_ACTOR=seb tik set "$id" category=technical severity=high >/dev/null
step status "$id"

echo; echo "# A dispute regresses the stage by derivation:"
TIK_ACTOR=billing tik dispute "$id" category --reason "looks like billing" >/dev/null
step status "$id"
TIK_ACTOR=billing tik dispute "$id" category --withdraw >/dev/null

echo; echo "# A reproduction, a fix and the customer's ack close the ticket (a sticky milestone):"
printf '#!/bin/sh\ncurl -sf https://example.test/login\n' > "$store/crash.sh"
TIK_ACTOR=seb tik attach "$id" "$store/crash.sh" >/dev/null
TIK_ACTOR=seb tik set "$id" resolution.ref=abc123def456 >/dev/null
TIK_ACTOR=customer tik set "$id" customer.ack=true >/dev/null
TIK_ACTOR=customer tik retract "$id" customer.ack --reason misclick >/dev/null
step status "$id"
step log "$id"
step status "$id" --json
step ls --all
step verify

echo; echo "# Scripted tests run a process against cases, with no store at all:"
cat > "$store/processes/support-request.tests.edn" <<'EDN'
{:test/process "support-request.edn"
 :test/roles {:triager {:members ["seb"]}}
 :test/cases [{:case/name "a triager triages"
               :case/steps [[:actor "seb"] [:set [:category] :billing] [:set [:severity] :low]]
               :case/expect {:current #{:triaged}}}
              {:case/name "billing tickets resolve without a repro"
               :case/steps [[:actor "seb"] [:set [:category] :billing] [:set [:severity] :low]
                            [:set [:resolution :ref] "refund-4711"]]
               :case/expect {:includes #{:resolved} :excludes #{:reproducible}}}]}
EDN
step test "$store/processes/support-request.tests.edn"
