/** The kinds of subject that can hold grants and authenticate (spec: sub_kind). */
export const IdentityType = {
    USER: 'user',
    CLIENT: 'client',
} as const;

export type IdentityType = typeof IdentityType[keyof typeof IdentityType];

export const IDENTITY_TYPES: readonly IdentityType[] = Object.freeze(Object.values(IdentityType));

export function isIdentityType(value: unknown): value is IdentityType {
    return value === IdentityType.USER || value === IdentityType.CLIENT;
}
