/**
 * tik's pure kernel: events and mint, the reducer, process definitions and roles, guards, stage
 * derivation and the lenses. No I/O, no clock, no randomness: time (`now`) and ids are arguments.
 * The store, verify and CLI code against exactly these names.
 */
export {
  type TikEvent,
  type MintInput,
  EVENT_TYPES,
  parseEvent,
  eventFromMap,
  eventSchemaProblems,
  parentsProblem,
  mintEvent,
  K,
} from './event.js';
export { missingParents, heads, roots, foldOrder } from './dag.js';
export {
  type TicketState,
  type FactStatus,
  type FactEntry,
  type HistoryNode,
  factHistory,
  type FactValue,
  type FactRetracted,
  type Dispute,
  type Write,
  type Artifact,
  type Attestation,
  type Migration,
  TicketFold,
  reduce,
  factStatus,
  factStatusByKey,
  factValue,
  factMap,
} from './reduce.js';
export { type ProcessDef, type StageDef, type FactDecl, type Roles, parseProcess, parseRoleMap, resolveRoles } from './process.js';
export { type Reason, type ReasonKind, type Alternative, reasonToEdn, reasonKey, actionability, reasonPath } from './reason.js';
export {
  type GuardContext,
  type GuardResult,
  VOCAB_1,
  VOCAB_2,
  evaluateGuard,
  evaluateGuards,
} from './guard.js';
export {
  type TimelineEntry,
  type Evolution,
  reachedSet,
  evolve,
  effectiveReached,
  derive,
  ancestorsOf,
  currentStages,
  downstream,
  sortedStages,
} from './stage.js';
export {
  type ExplainBlock,
  type ExplainResult,
  type ExplainOptions,
  explain,
  explainDerived,
  actorCanAct,
  blockFor,
  listsAsMissing,
  onlyRoleMayProvide,
} from './explain.js';
export {
  type Action,
  type Unlock,
  type InboxItem,
  type WaitingItem,
  type InboxResult,
  type InboxTicket,
  type InboxOptions,
  inbox,
  isSettled,
} from './next.js';
export { type StatusFact, type StatusResult, status } from './status.js';
export { type LogEntry, logLens } from './log-lens.js';
export { type DiffResult, diff } from './diff.js';
export { type Finding, type LintOptions, type LintResult, LINT_RULES, PROCESS_KEYS, ROLE_KEYS, STAGE_KEYS, lint } from './lint.js';
export { type Support, type CausalEntry, causal } from './causal.js';
export { type SelectRow, type Selector, compileSelector, MAX_SELECTOR_LENGTH, strOf } from './select.js';
export { type PlanStatus, type PlanSummary, planSummary } from './plan.js';
export { type DerivationWindow, derivationWindow } from './derivation-window.js';
