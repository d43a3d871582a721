import { createPolicyEngine, type PolicyEngine } from './engine.js';
import { attributeNamesPolicyType } from './types/attribute-names.js';
import { attributesPolicyType } from './types/attributes.js';
import { compositePolicyType } from './types/composite.js';
import { datePolicyType } from './types/date.js';
import { identityPolicyType } from './types/identity.js';
import { permissionBindingPolicyType } from './types/permission-binding.js';
import { realmMatchPolicyType } from './types/realm-match.js';
import { timePolicyType } from './types/time.js';
import type { PolicyTypeDefinition } from './types.js';

/** Every built-in type, explicitly listed: the registry is this array, nothing registers itself. */
export const builtInPolicyTypes: readonly PolicyTypeDefinition[] = Object.freeze([
    compositePolicyType,
    attributesPolicyType,
    attributeNamesPolicyType,
    datePolicyType,
    timePolicyType,
    identityPolicyType,
    realmMatchPolicyType,
    permissionBindingPolicyType,
] as PolicyTypeDefinition[]);

export const defaultPolicyEngine: PolicyEngine = createPolicyEngine(builtInPolicyTypes);
