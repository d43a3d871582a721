import type { RealmScope } from '@realmgate/core';

/*
 * The column groups and value types every table shares (the conventions in db/schema.ts).
 */

export type DbDate = Date | string;
export type DbBool = boolean | number;

export interface Timestamps {
    created_at: DbDate;
    updated_at: DbDate;
}

export interface GrantColumns extends Timestamps {
    id: string;
    permission_id: string;
    realm_scope: RealmScope;
    policy_id: string | null;
}

export interface AttributeColumns extends Timestamps {
    id: string;
    name: string;
    /** JSON-serialized; a string stays a string (spec beta.68 item 3) */
    value: string | null;
    realm_id: string;
}
