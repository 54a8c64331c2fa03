/**
 * Stage-reached webhooks delivered once per (ticket, stage, effect) across a fleet of `tik serve`
 * replicas (law T6; docs/tik-effects.md).
 */
export { type EffectRule, type EffectsConfig, DEFAULT_PIPELINE, parseEffectsConfig } from './effects-config.js';
export { effectKey, effectKeyText } from './effect-key.js';
export { type Backoff, backoffMs } from './backoff.js';
export { DeliveryLedger, type DeliveryLedgerOptions, type DeliveryRow, type DeliveryState, type NewDelivery } from './delivery-ledger.js';
export { type ScanResult, deliveryPayload, scanReached } from './scan-reached.js';
export { type SendWebhook, type WebhookOutcome, type WebhookRequest, httpWebhookSender } from './webhook-sender.js';
export { EffectsRunner, type EffectsLog, type EffectsRunnerOptions, type RoundReport, defaultWriter } from './effects-runner.js';
export { type EffectsOptions, effectsOptionsFromEnv } from './effects-options.js';
export { type EffectsService, type OpenEffectsDeps, defaultEffectsFile, openEffects } from './effects-service.js';
