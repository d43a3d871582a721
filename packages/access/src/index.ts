export {
    AccessError,
    AccessErrorCode,
    AuthorizationCatalogStaleError,
    PermissionDeniedError,
    isAccessError,
    isAuthorizationCatalogStaleError,
    isPermissionDeniedError,
} from './errors.js';
export type { AccessErrorIssue, PropertyPath } from './errors.js';

export { BuiltInPolicyType, WITHHELD_POLICY_TYPE } from './policy/constants.js';
export { Outcome, combineOutcomes } from './policy/outcome.js';
export { matchCondition, validateCondition } from './policy/condition.js';
export type { Condition, ConditionScalar, FieldCondition, FieldOperator, Lowered } from './policy/condition.js';
export { PolicyData, validatePolicyData } from './policy/data.js';
export type { InstantInput, PolicyIdentity, RealmMatchData } from './policy/data.js';
export { getAttributeValue } from './policy/path.js';
export { createPolicyEngine, isPolicyValidationError, isUnknownPolicyTypeError } from './policy/engine.js';
export type { PolicyEngine, PolicyEvaluateOptions, PolicyOutcomeName } from './policy/engine.js';
export { builtInPolicyTypes, defaultPolicyEngine } from './policy/registry.js';
export { createSystemDefaultPolicy } from './policy/system.js';
export { lowerRealmReach, realmScopeReaches } from './policy/realm-reach.js';
export type {
    CanonicalPolicy,
    CompiledGrant,
    CompiledPolicy,
    EvaluationContext,
    LoweringContext,
    PolicyNodeInput,
    PolicyTypeDefinition,
} from './policy/types.js';
export { attributeNamesPolicyType } from './policy/types/attribute-names.js';
export type { AttributeNamesPolicy } from './policy/types/attribute-names.js';
export { attributesPolicyType } from './policy/types/attributes.js';
export type { AttributesPolicy } from './policy/types/attributes.js';
export { compositePolicyType } from './policy/types/composite.js';
export type { CompositePolicy } from './policy/types/composite.js';
export { datePolicyType } from './policy/types/date.js';
export type { DatePolicy } from './policy/types/date.js';
export { identityPolicyType } from './policy/types/identity.js';
export type { IdentityPolicy } from './policy/types/identity.js';
export { permissionBindingPolicyType } from './policy/types/permission-binding.js';
export type { PermissionBindingPolicy } from './policy/types/permission-binding.js';
export { realmMatchPolicyType } from './policy/types/realm-match.js';
export type { RealmMatchPolicy } from './policy/types/realm-match.js';
export { timePolicyType } from './policy/types/time.js';
export type { TimePolicy } from './policy/types/time.js';

export { createAuthorizationEvaluator } from './catalog/evaluator.js';
export type {
    AuthorizationEvaluateContext,
    AuthorizationEvaluateOptions,
    AuthorizationEvaluator,
    AuthorizationEvaluatorInput,
} from './catalog/evaluator.js';
export type { AuthorizationCompileContext, AuthorizationCompileResult } from './catalog/compile.js';
export type {
    AuthorizationCatalog,
    AuthorizationCatalogPermission,
    AuthorizationCheckEntry,
    AuthorizationGrant,
} from './catalog/types.js';
export { createAuthorizationCheckEvaluator } from './check/evaluator.js';
export type { AuthorizationCheckEvaluator, CheckRealm } from './check/evaluator.js';
export { deniesWithoutGrant, policyNeedsIdentity } from './check/grantless.js';
export { getNextPolicyChange, secondsUntilNextPolicyChange } from './schedule/next-change.js';
