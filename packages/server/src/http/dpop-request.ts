import type { FastifyRequest } from 'fastify';
import type { DpopPresentation } from '../authn/dpop-proof.js';

/**
 * What a request offers a DPoP verifier (RFC 9449 §4.3): its `DPoP` header as received (an array
 * when repeated), its method, and its path without the query — `htu` excludes query and fragment
 * (§4.2), and the verifier puts PUBLIC_URL (or the mutual-TLS alias) before the path.
 */
export function dpopPresentationOf(request: FastifyRequest): DpopPresentation {
    const queryAt = request.url.indexOf('?');
    return { proof: request.headers.dpop, method: request.method, path: queryAt === -1 ? request.url : request.url.slice(0, queryAt) };
}
