import { classifyDbError } from '../db/errors.js';

/** Insert unless present; a concurrent replica inserting the same row first is not an error. */
export async function insertIgnoringDuplicate(work: () => Promise<unknown>): Promise<void> {
    try {
        await work();
    } catch (error) {
        if (classifyDbError(error)?.kind !== 'unique') throw error;
    }
}
