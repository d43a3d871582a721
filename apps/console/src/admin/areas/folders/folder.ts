import type { Field } from '../../../shared/components/EntityForm.vue';
import type { RealmgateClient } from '@realmgate/client';
import { allRows } from '../../all-rows.js';
import { t } from '../../../shared/i18n/i18n.js';

/**
 * Folders (/paths; spec: organization only — a folder grants nothing and withholds nothing).
 * A folder has a name (no `/`) and an optional parent folder of the same realm.
 */
export interface Folder { id?: string | null; name?: string | null; parentId?: string | null; realmId?: string | null; createdAt?: string | null; updatedAt?: string | null; [member: string]: unknown }

/** Every folder of the realm, for the parent chooser and the full paths. */
export const foldersOf = async (api: RealmgateClient, realmId: string): Promise<Folder[]> =>
    allRows((query) => api.request('GET /realms/{realmId}/paths', { params: { realmId }, query: { ...query, sort: ['name'] } as never }) as never);

/** The full path of a folder, e.g. `staff/berlin` (bounded against a cycle). */
export function pathOf(folders: Folder[], id: string | null | undefined): string {
    const parts: string[] = [];
    let cursor = id;
    for (let depth = 0; cursor && depth < 64; depth++) {
        const folder = folders.find((row) => row.id === cursor);
        if (!folder) break;
        parts.unshift(String(folder.name));
        cursor = folder.parentId;
    }
    return parts.join('/');
}

/** Is `id` the folder `ancestor` or below it (a folder cannot move under itself). */
function within(folders: Folder[], id: string | null | undefined, ancestor: string): boolean {
    let cursor = id;
    for (let depth = 0; cursor && depth < 64; depth++) {
        if (cursor === ancestor) return true;
        cursor = folders.find((row) => row.id === cursor)?.parentId;
    }
    return false;
}

export function folderFields(folders: Folder[], self?: string): Field[] {
    const parents = folders.filter((folder) => !self || !within(folders, folder.id, self));
    return [
        { name: 'name', label: t('common.name'), required: true, help: t('folder.nameHelp') },
        {
            name: 'parentId', label: t('folder.parent'), type: 'select',
            options: [{ value: '', label: t('folder.top') }, ...parents.map((folder) => ({ value: String(folder.id), label: pathOf(folders, folder.id) })).sort((a, b) => a.label.localeCompare(b.label))],
        },
    ];
}
