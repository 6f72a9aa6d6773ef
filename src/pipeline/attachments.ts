/**
 * A turn's attachments made ready for its model (CONTRACT.md "Attachments"), once the process has let the
 * turn in (overload) and before anything is held for it, so a photo that cannot be read is a 400 that
 * changed nothing:
 * - for a model that sees (VISION_MODELS), each image is decoded and re-encoded without its metadata
 *   (media/images.ts) and priced by the model's image rule (model/vision.ts);
 * - for any other model no image is decoded: each is named in the answer's note as not read (its bytes
 *   still judged, so a drawing or a file that is no image is refused the same way);
 * - an image link is never fetched: it is named as not read;
 * - files go on as text, as untrusted data (request/user-content.ts).
 */
import { judgeImage, type ImageReader } from '../media/images.js';
import { imageTokens, type VisionModels } from '../model/vision.js';
import type { TurnRequest } from '../request/chat-request.js';
import type { SeenAttachments, UnreadAttachment } from '../request/message-attachments.js';

export interface AttachmentReader {
  /** The request with its attachments read (`seen`); a 400 (BadRequestError) for an image that cannot be. */
  read(request: TurnRequest): Promise<TurnRequest>;
}

export function createAttachmentReader(parts: { images: ImageReader; vision: VisionModels }): AttachmentReader {
  return {
    async read(request) {
      const a = request.attachments;
      if (!a || a.images.length + a.files.length + a.imageLinks.length === 0) return request;
      const unread: UnreadAttachment[] = a.imageLinks.map((name) => ({ name, why: 'link' }));
      const sees = parts.vision.sees(request.model);
      const seen: SeenAttachments = { images: [], files: a.files, unread };
      if (sees) {
        const read = await Promise.all(a.images.map((image) => parts.images.read(image)));
        seen.images = read.map((image) => ({ ...image, tokens: imageTokens(request.model, image.width, image.height) }));
      } else {
        for (const image of a.images) {
          judgeImage(image);
          unread.push({ name: image.name, why: 'model' });
        }
      }
      // The bytes as sent are not kept past this point: only what the model may see.
      return { ...request, attachments: undefined, seen };
    },
  };
}

/**
 * The answer's first words when an attachment was not read (the service writes them, not the model):
 * which one, why, and how to ask instead.
 */
export function unreadNote(unread: readonly UnreadAttachment[]): string {
  if (unread.length === 0) return '';
  const byModel = unread.filter((u) => u.why === 'model').map((u) => `"${u.name}"`);
  const links = unread.filter((u) => u.why === 'link').map((u) => `"${u.name}"`);
  const parts: string[] = [];
  if (byModel.length > 0) parts.push(`I couldn't read the attached ${byModel.length === 1 ? 'image' : 'images'} ${byModel.join(', ')}: the model answering here doesn't see images.`);
  if (links.length > 0) parts.push(`I didn't open the linked ${links.length === 1 ? 'image' : 'images'} ${links.join(', ')}: images from links are not fetched.`);
  const it = unread.length === 1 ? 'it shows' : 'they show';
  return `${parts.join(' ')} Tell me in words what ${it} (the event, the building, the course or the time), or choose a model that reads images, and I'll help.\n\n`;
}
