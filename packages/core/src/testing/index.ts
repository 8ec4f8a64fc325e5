/**
 * Test helpers shared by threadwise packages and by users testing their own agents:
 * `@threadwise/core/testing`. Offline and deterministic.
 */
export { characterTokenCounter, type RecordedAssistantTurn, replayModel, scriptedModel } from "./fake-models.js";
export {
  assertProviderRequest,
  PROVIDER_RULES,
  PROVIDERS,
  type Provider,
  type ProviderCheckOptions,
  ProviderRequestError,
  type ProviderRule,
  type ProviderViolation,
  validateProviderRequest,
} from "./provider-validator.js";
export {
  ProviderLog,
  type ProviderRejection,
  providerProbe,
  requestInput,
  type StrictFakeModel,
  type StrictModelOptions,
  strictModel,
  withProviderCheck,
} from "./strict-model.js";
