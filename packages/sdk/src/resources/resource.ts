import type { HttpClient } from '../client.ts';

/** Base of every operation group: holds the transport its methods call. */
export abstract class Resource {
  constructor(protected readonly client: HttpClient) {}
}
