import { inject, type InjectionKey, type Ref } from 'vue';

export interface User {
    id?: string | null;
    name?: string | null;
    displayName?: string | null;
    firstName?: string | null;
    lastName?: string | null;
    email?: string | null;
    emailVerified?: boolean | null;
    active?: boolean | null;
    realmId?: string | null;
    /** the folder the row is filed in (/paths) */
    pathId?: string | null;
    createdAt?: string | null;
    updatedAt?: string | null;
    [member: string]: unknown;
}

/** The user of UserPage.vue, shared with its tabs. */
export const USER: InjectionKey<{ user: Ref<User | null>; reload(): Promise<void> }> = Symbol('user');

export function useUser(): { user: Ref<User | null>; reload(): Promise<void> } {
    const provided = inject(USER);
    if (!provided) throw new Error('a user tab outside UserPage.vue');
    return provided;
}
