import type { RealmgateClient } from '@realmgate/client';
import { describeError, issuesByField } from '../../../shared/api.js';
import { typeOf } from './policy-types.js';
import { t } from '../../../shared/i18n/i18n.js';

/**
 * The tree editor's model. A policy tree is stored as rows (API.md §3: a composite's children are
 * policies of their own, created with `parentId`; `GET /policies/:id/expanded` answers the nested
 * tree): the editor holds the nested tree, and saving writes it node by node, parents first.
 */
export interface PolicyNode {
    /** a key unique in the page (element ids, v-for) */
    key: number;
    /** the stored row, once created */
    id?: string;
    type: string;
    name: string;
    displayName: string;
    invert: boolean;
    /** the type's configuration as the form holds it (policy-types.ts) */
    config: Record<string, unknown>;
    children: PolicyNode[];
    /** the API's issues by member, after a failed save */
    errors: Record<string, string>;
}

let counter = 0;

export function emptyConfig(type: string): Record<string, unknown> {
    const config: Record<string, unknown> = {};
    for (const field of typeOf(type)?.fields ?? []) {
        config[field.key] = field.empty ?? (field.kind === 'checkbox' ? false : field.kind === 'checks' ? [] : '');
    }
    return config;
}

export function newNode(type = 'identity', name = ''): PolicyNode {
    return { key: ++counter, type, name, displayName: '', invert: false, config: emptyConfig(type), children: [], errors: {} };
}

/** A stored record (with `children` when expanded) as an editor node. */
export function nodeOfRecord(record: Record<string, unknown>): PolicyNode {
    const type = String(record.type ?? '');
    const node = newNode(type, String(record.name ?? ''));
    node.id = String(record.id);
    node.displayName = typeof record.displayName === 'string' ? record.displayName : '';
    node.invert = record.invert === true;
    for (const field of typeOf(type)?.fields ?? []) {
        const value = record[field.key];
        if (value === undefined || value === null) continue;
        if (field.kind === 'list') node.config[field.key] = Array.isArray(value) ? value.join(', ') : String(value);
        else if (field.kind === 'json') node.config[field.key] = JSON.stringify(value, null, 2);
        else if (field.kind === 'number') node.config[field.key] = String(value);
        else node.config[field.key] = value;
    }
    node.children = Array.isArray(record.children) ? (record.children as Record<string, unknown>[]).map(nodeOfRecord) : [];
    return node;
}

class FieldError extends Error {
    constructor(readonly field: string, message: string) { super(message); }
}

/** The node's configuration members as the API takes them; an emptied key is sent as null (unset). */
function configBody(node: PolicyNode): Record<string, unknown> {
    const body: Record<string, unknown> = {};
    for (const field of typeOf(node.type)?.fields ?? []) {
        const value = node.config[field.key];
        if (field.when && !field.when(node.config)) { body[field.key] = null; continue; }
        switch (field.kind) {
            case 'checkbox': body[field.key] = value === true; break;
            case 'checks': body[field.key] = Array.isArray(value) && value.length > 0 ? value : null; break;
            case 'number': body[field.key] = value === '' || value === undefined || value === null ? null : Number(value); break;
            case 'list': {
                const items = String(value ?? '').split(/[\s,]+/).filter(Boolean);
                // `names` may be an empty list; an empty realm-match list means the default
                body[field.key] = items.length > 0 || field.key === 'names' ? items : null;
                break;
            }
            case 'json': {
                const text = String(value ?? '').trim();
                try {
                    body[field.key] = text ? JSON.parse(text) as unknown : null;
                } catch {
                    throw new FieldError(field.key, 'is not valid JSON');
                }
                break;
            }
            default: body[field.key] = value === '' || value === undefined ? null : value;
        }
    }
    return body;
}

/** The nested JSON of the tree (the shape `GET /policies/:id/expanded` answers), for the preview. */
export function treeJson(node: PolicyNode): Record<string, unknown> {
    let config: Record<string, unknown>;
    try { config = configBody(node); } catch { config = {}; }
    const json: Record<string, unknown> = { type: node.type, name: node.name || undefined, invert: node.invert };
    for (const [key, value] of Object.entries(config)) if (value !== null) json[key] = value;
    if (node.type === 'composite') json.children = node.children.map(treeJson);
    return json;
}

/** The stored ids of a tree and each one's parent, to find what a save must delete. */
export function storedIds(node: PolicyNode, parent: string | null = null, into = new Map<string, string | null>()): Map<string, string | null> {
    if (node.id) into.set(node.id, parent);
    if (node.type === 'composite') for (const child of node.children) storedIds(child, node.id ?? null, into);
    return into;
}

function clearErrors(node: PolicyNode): void {
    node.errors = {};
    for (const child of node.children) clearErrors(child);
}

/** The ids a save deletes: stored before, gone now; only the topmost (deleting a parent deletes its subtree). */
export function removedIds(before: Map<string, string | null>, root: PolicyNode): string[] {
    const now = storedIds(root);
    const gone = [...before.keys()].filter((id) => !now.has(id));
    return gone.filter((id) => { const parent = before.get(id); return !parent || now.has(parent); });
}

export class TreeSaveError extends Error {}

/**
 * Writes the tree: deletes the removed subtrees, then each node parents first (update the stored
 * ones, create the new ones under their parent). It stops at the first refusal with the API's
 * issues on that node; nodes written so far keep their ids, so saving again continues.
 */
export async function saveTree(api: RealmgateClient, realmId: string, root: PolicyNode, before: Map<string, string | null>): Promise<void> {
    clearErrors(root);
    for (const id of removedIds(before, root)) {
        try {
            await api.request('DELETE /realms/{realmId}/policies/{id}', { params: { realmId, id } });
        } catch (failure) {
            throw new TreeSaveError(t('policy.nodeNotDeleted', { reason: describeError(failure) }));
        }
    }
    const write = async (node: PolicyNode, parentId: string | null, path: string): Promise<void> => {
        if (!node.name.trim()) node.name = parentId ? `${root.name}.${path}` : '';
        let body: Record<string, unknown>;
        try {
            body = { type: node.type, name: node.name.trim(), displayName: node.displayName.trim() || null, invert: node.invert, ...configBody(node) };
        } catch (failure) {
            if (failure instanceof FieldError) node.errors = { [failure.field]: failure.message };
            throw new TreeSaveError(t('policy.checkTree'));
        }
        try {
            if (node.id) {
                await api.request('POST /realms/{realmId}/policies/{id}', { params: { realmId, id: node.id }, body });
            } else {
                const created = await api.request('POST /realms/{realmId}/policies', { params: { realmId }, body: { ...body, parentId, realmId } as unknown as { type: string; name: string } });
                node.id = String(created.data.id);
            }
        } catch (failure) {
            const byField = issuesByField(failure);
            if (Object.keys(byField).length === 0) throw new TreeSaveError(describeError(failure));
            node.errors = byField;
            throw new TreeSaveError(t('policy.checkTree'));
        }
        if (node.type === 'composite') {
            for (const [index, child] of node.children.entries()) await write(child, node.id ?? null, path ? `${path}.${index + 1}` : String(index + 1));
        }
    };
    await write(root, null, '');
}
