// Generated from GET /v1/openapi.json by openapi-typescript: do not edit. Regenerate: npm run openapi:types -w @tidings/api
export interface paths {
    "/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys
         * @description Keys that are not deleted, newest first. Never the full key: `prefix` and `lastUsedAt` tell them apart.
         */
        get: operations["apiKey.list"];
        put?: never;
        /**
         * Create an API key
         * @description Creates a key for this organization. The full key is in this response only; store it now.
         */
        post: operations["apiKey.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete an API key
         * @description Final: the key stops working and cannot be enabled again.
         */
        delete: operations["apiKey.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-keys/{id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable an API key
         * @description Requests with the key answer 401 (within 5 seconds on every replica) until it is enabled again.
         */
        post: operations["apiKey.disable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-keys/{id}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enable an API key
         * @description Makes a disabled key work again. A deleted key cannot be enabled.
         */
        post: operations["apiKey.enable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-keys/{id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate an API key
         * @description Issues a new secret, shown once. The old one keeps working for 24 hours unless `immediately` is true.
         */
        post: operations["apiKey.rotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * @example {
         *       "id": "key_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "name": "CI deploys",
         *       "permission": "sending",
         *       "mode": "live",
         *       "prefix": "sk_live_Ab3d",
         *       "state": "enabled",
         *       "lastUsedAt": "2026-11-23T08:05:00.000Z",
         *       "previousKeyExpiresAt": null,
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:00:00.000Z"
         *     }
         */
        ApiKey: {
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            /** @example key_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            lastUsedAt: string | null;
            /**
             * @description `live` keys send through the real providers; `test` keys only ever reach the sandbox.
             * @enum {string}
             */
            mode: "live" | "test";
            name: string;
            /**
             * @description `full`: every operation. `sending`: only message.send, message.list and message.get.
             * @enum {string}
             */
            permission: "full" | "sending";
            /**
             * @description The first 12 characters of the key.
             * @example sk_live_Ab3d
             */
            prefix: string;
            /**
             * Format: date-time
             * @description After a rotation, when the previous secret stops working; null when it already has.
             * @example 2026-11-23T08:00:00.000Z
             */
            previousKeyExpiresAt: string | null;
            /** @enum {string} */
            state: "enabled" | "disabled";
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            updatedAt: string;
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "key_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "name": "CI deploys",
         *           "permission": "sending",
         *           "mode": "live",
         *           "prefix": "sk_live_Ab3d",
         *           "state": "enabled",
         *           "lastUsedAt": "2026-11-23T08:05:00.000Z",
         *           "previousKeyExpiresAt": null,
         *           "createdAt": "2026-11-23T08:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:00:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        ApiKeyList: {
            data: components["schemas"]["ApiKey"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "id": "key_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "name": "CI deploys",
         *       "permission": "sending",
         *       "mode": "live",
         *       "prefix": "sk_live_Ab3d",
         *       "state": "enabled",
         *       "lastUsedAt": "2026-11-23T08:05:00.000Z",
         *       "previousKeyExpiresAt": null,
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:00:00.000Z",
         *       "key": "sk_live_Ab3dEfGh1jKlMn0pQrStUvWxYz012345"
         *     }
         */
        ApiKeyWithSecret: components["schemas"]["ApiKey"] & {
            /**
             * @description The full key. Shown only in this response.
             * @example sk_live_Ab3dEf...
             */
            key: string;
        };
        /**
         * @example {
         *       "name": "CI deploys",
         *       "permission": "sending"
         *     }
         */
        CreateApiKeyBody: {
            /**
             * @description Defaults to the calling key's mode. A `test` key can only create `test` keys.
             * @enum {string}
             */
            mode?: "live" | "test";
            name: string;
            /**
             * @description `full`: every operation. `sending`: only message.send, message.list and message.get.
             * @default full
             * @enum {string}
             */
            permission?: "full" | "sending";
        };
        Error: {
            /** @enum {string} */
            code: "UNAUTHORIZED" | "FORBIDDEN" | "BAD_REQUEST" | "NOT_FOUND" | "CONFLICT" | "TOO_MANY_REQUESTS" | "INTERNAL_SERVER_ERROR";
            /** @example name: Too small: expected string to have >=1 characters */
            message: string;
        };
        /**
         * @example {
         *       "immediately": false
         *     }
         */
        RotateApiKeyBody: {
            /**
             * @description Stop the old secret now instead of letting it work for 24 hours.
             * @default false
             */
            immediately?: boolean;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    "apiKey.list": {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of keys */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "name: Too small: expected string to have >=1 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.list and message.get"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "API key not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Idempotency-Key was already used with a different request body"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKey.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateApiKeyBody"];
            };
        };
        responses: {
            /** @description The new key, with its secret */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyWithSecret"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "name: Too small: expected string to have >=1 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.list and message.get"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "API key not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Idempotency-Key was already used with a different request body"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKey.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "name: Too small: expected string to have >=1 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.list and message.get"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "API key not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Idempotency-Key was already used with a different request body"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKey.disable": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The disabled key */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "name: Too small: expected string to have >=1 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.list and message.get"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "API key not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Idempotency-Key was already used with a different request body"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKey.enable": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The enabled key */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "name: Too small: expected string to have >=1 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.list and message.get"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "API key not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Idempotency-Key was already used with a different request body"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKey.rotate": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["RotateApiKeyBody"];
            };
        };
        responses: {
            /** @description The key with its new secret */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyWithSecret"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "name: Too small: expected string to have >=1 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.list and message.get"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "API key not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Idempotency-Key was already used with a different request body"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
