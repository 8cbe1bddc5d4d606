import type { OutgoingAttachment } from './provider.types.ts';

/**
 * The whole attachment in one Buffer, for providers whose API takes the file inside a JSON body. Errors of the
 * stream (a fetch that failed half-way) pass through to the caller as they are.
 * @example const bytes = await readAttachment(email.attachments[0]);
 */
export async function readAttachment(attachment: OutgoingAttachment): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of attachment.content) chunks.push(chunk as Buffer);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
