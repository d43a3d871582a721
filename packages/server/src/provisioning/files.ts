import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, relative } from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import { Value, type ValueError } from '@sinclair/typebox/value';
import { parse as parseYaml } from 'yaml';
import { ProvisioningFileSchema } from './schema.js';

/** A provisioning file that is unreadable, malformed or refused; the message names the file and the place in it. */
export class ProvisioningError extends Error {
    readonly code = 'provisioning_failed';

    constructor(file: string, pointer: string, message: string) {
        super(`${file}: ${pointer || '/'}: ${message}`);
        this.name = 'ProvisioningError';
    }
}

/** One parsed and validated file; `name` is how messages name it (relative to the folder's parent). */
export interface ProvisioningDocument {
    name: string;
    content: Record<string, unknown>;
}

const EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

/** The files a path names: the file itself, or a folder's `*.json`, `*.yaml`, `*.yml` in name order; none when it does not exist. */
async function filesAt(path: string): Promise<string[]> {
    const found = await stat(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
    });
    if (!found) return [];
    if (!found.isDirectory()) return [path];
    const entries = await readdir(path, { withFileTypes: true });
    return entries
        .filter((entry) => entry.isFile() && EXTENSIONS.has(extname(entry.name).toLowerCase()))
        .map((entry) => join(path, entry.name))
        .sort();
}

/** Duplicate names in one list would apply the second entry onto the first: refused instead. */
function refuseDuplicateNames(name: string, value: unknown, pointer: string): void {
    if (Array.isArray(value)) {
        const seen = new Map<string, number>();
        value.forEach((item: unknown, index) => {
            const declared = typeof item === 'object' && item !== null ? (item as { name?: unknown }).name : undefined;
            // names are stored in Normalization Form C: two spellings of one name are one row
            const itemName = typeof declared === 'string' ? declared.normalize('NFC') : undefined;
            if (itemName !== undefined) {
                const first = seen.get(itemName);
                if (first !== undefined) throw new ProvisioningError(name, `${pointer}/${index}/name`, `duplicates ${pointer}/${first}/name "${itemName}"`);
                seen.set(itemName, index);
            }
            refuseDuplicateNames(name, item, `${pointer}/${index}`);
        });
    } else if (typeof value === 'object' && value !== null) {
        for (const [key, child] of Object.entries(value)) if (Array.isArray(child)) refuseDuplicateNames(name, child, `${pointer}/${key}`);
    }
}

/** The validator's message, phrased as the API's issues are ("must be array"). */
function messageOf(error: ValueError): string {
    if (error.message === 'Expected required property') return 'is required';
    if (error.message === 'Unexpected property') return 'is not a member of this entry';
    const options = error.schema.anyOf as TSchema[] | undefined;
    if (options) return `must be ${options.map((option) => (option.const !== undefined ? JSON.stringify(option.const) : String(option.type))).join(' or ')}`;
    return error.message.replace(/^Expected /, 'must be ');
}

/** Parse and validate one file's text against the file format (schema.ts). */
export function parseProvisioningFile(name: string, text: string): ProvisioningDocument {
    let content: unknown;
    try {
        content = name.toLowerCase().endsWith('.json') ? JSON.parse(text) : parseYaml(text);
    } catch (error) {
        throw new ProvisioningError(name, '', `cannot be parsed: ${error instanceof Error ? error.message : String(error)}`);
    }
    // an empty YAML file declares nothing
    content ??= {};
    const first = Value.Errors(ProvisioningFileSchema, content).First();
    if (first) throw new ProvisioningError(name, first.path, messageOf(first));
    refuseDuplicateNames(name, content, '');
    return { name, content: content as Record<string, unknown> };
}

/**
 * Every provisioning file a path names, parsed and validated before anything is applied, so a bad
 * file refuses the whole set. Files are named relative to the parent of the folder (a boot reports
 * `provisioning/realms.yaml`).
 */
export async function loadProvisioningFiles(path: string): Promise<ProvisioningDocument[]> {
    const files = await filesAt(path);
    const base = join(path, '..');
    const documents: ProvisioningDocument[] = [];
    for (const file of files) {
        const name = relative(base, file) || basename(file);
        documents.push(parseProvisioningFile(name, await readFile(file, 'utf8')));
    }
    return documents;
}
