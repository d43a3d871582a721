/** A small client for the Realmgate HTTP API, used to seed the benchmark data the way users would. */

export const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

export interface TokenAnswer {
    access_token: string;
    refresh_token?: string;
}

export class Api {
    constructor(readonly baseUrl: string, private readonly authorization: string) {}

    async request<T>(method: string, path: string, body?: unknown, authorization = this.authorization): Promise<{ status: number; body: T }> {
        const response = await fetch(`${this.baseUrl}${path}`, {
            method,
            headers: { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
            ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        const text = await response.text();
        return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
    }

    /** POST a record and return its id; anything but 201 stops the run with the answer. */
    async create(collection: string, payload: Record<string, unknown>): Promise<string> {
        const answer = await this.request<{ data: { id: string } }>('POST', `/${collection}`, payload);
        if (answer.status !== 201) throw new Error(`POST /${collection} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        return answer.body.data.id;
    }

    /** A token from POST /token with a form body, as OAuth clients send it. */
    async token(form: Record<string, string>, authorization?: string): Promise<TokenAnswer> {
        const response = await fetch(`${this.baseUrl}/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
            body: new URLSearchParams(form).toString(),
        });
        const text = await response.text();
        if (response.status !== 200) throw new Error(`POST /token (${form.grant_type}) answered ${response.status}: ${text}`);
        return JSON.parse(text) as TokenAnswer;
    }
}

/** Run `task` over `items` with at most `width` in flight (seeding many rows through the API). */
export async function inParallel<T, R>(items: readonly T[], width: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
    const results: R[] = new Array(items.length);
    let next = 0;
    const worker = async () => {
        while (next < items.length) {
            const index = next++;
            results[index] = await task(items[index]!, index);
        }
    };
    await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
    return results;
}
