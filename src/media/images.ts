/**
 * A photo or screenshot a student attached, made safe to send: judged by its bytes (never its declared
 * type), held under a pixel cap before anything is decoded, decoded and re-encoded by `sharp` (libvips)
 * as a JPEG, with every piece of metadata (EXIF,
 * GPS, XMP, ICC comments) left behind: what a model, a log or a stored run can see is the new JPEG.
 * Its size is what OpenAI's `detail: high` reads (the shortest side at most 768 px, the longest at most
 * 2,048): nothing a model reads is lost, and a 4:3 photo is sent at 1,024 × 768, not the 1,536 × 1,152
 * the gateway would scale it down from (half the bytes in flight, the same tokens).
 *
 * Decoding is the one costly step a request can ask for, so a replica decodes at most IMAGE_READS_AT_ONCE
 * images at a time, each on one libvips thread with libvips' operation cache off; the rest wait their
 * turn. A burst of photos costs time, not memory (BENCHMARKS.md, "Photos").
 *
 * `sharp` is loaded with the first image a replica reads, not at start: libvips and its libraries cost an
 * idle replica about 10 MB resident (and 13 MB of its peak under 250 held streams), which every replica
 * paid from its start whether or not a photo ever came (docs/perf-log/2026-12-01-lazy-sharp.md). The load
 * takes about 150 ms once in a replica's life, its longest stall of the event loop about 75 ms (well under
 * the overload guard's loop-delay limit).
 * The image's build loads it once (Dockerfile), so an install whose binary cannot load still fails there.
 */
import type { Metadata, default as Sharp } from 'sharp';
import { BadRequestError } from '../http/errors.js';

/** The sides sent to a model: OpenAI's `detail: high` scales an image to these before it reads it. */
export const IMAGE_MAX_SHORT_SIDE = 768;
export const IMAGE_MAX_LONG_SIDE = 2_048;
/** Pixels an image may have before it is decoded (about 5,000 × 5,000): a pixel bomb is refused by its header. */
export const IMAGE_MAX_PIXELS = 25_000_000;
/** Images one replica decodes at once. */
export const IMAGE_READS_AT_ONCE = 2;
/** The JPEG quality of the re-encoded image. */
const JPEG_QUALITY = 82;

let loading: Promise<typeof Sharp> | null = null;

/** `sharp`, loaded once, on the first image; a failed load is tried again by the next image. */
function loadSharp(): Promise<typeof Sharp> {
  loading ??= import('sharp')
    .then(({ default: sharp }) => {
      // One libvips thread an image and no operation cache: memory stays proportional to the images in hand.
      sharp.concurrency(1);
      sharp.cache(false);
      return sharp;
    })
    .catch((err: unknown) => {
      loading = null;
      throw err;
    });
  return loading;
}

/** The raster formats read, by what their first bytes say. */
export type RasterFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'heif';

/** An attached image as sent: its name and bytes. */
export interface ImageInput {
  name: string;
  bytes: Buffer;
}

/** An attached image as a model may see it. */
export interface ReadImage {
  name: string;
  /** `data:image/jpeg;base64,…` of the re-encoded image. */
  dataUrl: string;
  width: number;
  height: number;
  /** What it was, by its bytes. */
  format: RasterFormat;
}

const startsWith = (b: Buffer, bytes: number[], at = 0) => bytes.every((v, i) => b[at + i] === v);
const ascii = (b: Buffer, from: number, to: number) => b.toString('latin1', from, to);

/** The raster format the first bytes name; `svg` for markup; null for anything else. */
export function sniffImage(b: Buffer): RasterFormat | 'svg' | null {
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a') return 'gif';
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return 'webp';
  if (ascii(b, 4, 8) === 'ftyp' && /^(heic|heix|hevc|hevx|heim|heis|mif1|msf1|avif|avis)$/.test(ascii(b, 8, 12))) return 'heif';
  // Markup (SVG, HTML) starts with `<` after a byte-order mark and white space.
  const head = b.toString('utf8', 0, Math.min(b.length, 512)).replace(/^\uFEFF/, '').trimStart();
  if (head.startsWith('<')) return 'svg';
  return null;
}

/** The refusal for bytes that are not a raster image this service reads (a 400 naming the attachment). */
function notAnImage(name: string, sniffed: 'svg' | null): BadRequestError {
  return new BadRequestError(
    sniffed === 'svg'
      ? `the attachment "${name}" is a drawing (SVG or other markup), which is not read: attach a screenshot (PNG or JPEG) instead`
      : `the attachment "${name}" is not a photo or screenshot the assistant can read (JPEG, PNG, WebP, GIF or HEIC)`,
    'unreadable attachment',
  );
}

/**
 * The raster format of an attached image by its bytes, or the 400 for bytes that are none: what every
 * image goes through, whether a model will see it or not.
 */
export function judgeImage({ name, bytes }: ImageInput): RasterFormat {
  const sniffed = sniffImage(bytes);
  if (sniffed === null || sniffed === 'svg') throw notAnImage(name, sniffed);
  return sniffed;
}

/** A counting gate: at most `limit` holders at once, the others wait in arrival order. */
class Gate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

export interface ImageReader {
  /** The image re-encoded without its metadata, or a 400 (BadRequestError) that says why it cannot be read. */
  read(image: ImageInput): Promise<ReadImage>;
}

/** Decodes and re-encodes attached images, IMAGE_READS_AT_ONCE at a time. */
export function createImageReader(options: { readsAtOnce?: number; maxPixels?: number } = {}): ImageReader {
  const gate = new Gate(options.readsAtOnce ?? IMAGE_READS_AT_ONCE);
  const maxPixels = options.maxPixels ?? IMAGE_MAX_PIXELS;

  async function decode(name: string, bytes: Buffer, format: RasterFormat): Promise<ReadImage> {
    const unreadable = (why: string) => new BadRequestError(`the image "${name}" could not be read (${why}): attach it again as a JPEG or PNG`, 'unreadable attachment');
    const sharp = await loadSharp();
    let meta: Metadata;
    try {
      meta = await sharp(bytes, { failOn: 'truncated' }).metadata();
    } catch {
      throw unreadable('its file is damaged or incomplete');
    }
    const width = meta.width ?? 0;
    const height = meta.height ?? 0;
    if (width < 1 || height < 1) throw unreadable('it has no size');
    if (width * height > maxPixels) {
      throw new BadRequestError(
        `the image "${name}" is ${width} × ${height} pixels; images of up to ${Math.round(maxPixels / 1e6)} million pixels are read`,
        'attachment too large',
      );
    }
    // The longest side the image is sent at; the scale is the same turned or not, so EXIF orientation cannot change it.
    const scale = Math.min(1, IMAGE_MAX_SHORT_SIDE / Math.min(width, height), IMAGE_MAX_LONG_SIDE / Math.max(width, height));
    const longest = Math.max(1, Math.round(Math.max(width, height) * scale));
    try {
      // `rotate()` turns the picture as its EXIF orientation says before the metadata is dropped; sharp
      // writes no metadata unless asked (no keepMetadata/withMetadata), so EXIF and GPS stay behind.
      const { data, info } = await sharp(bytes, { failOn: 'truncated', limitInputPixels: maxPixels, sequentialRead: true })
        .rotate()
        .resize({ width: longest, height: longest, fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: JPEG_QUALITY })
        .toBuffer({ resolveWithObject: true });
      return { name, dataUrl: `data:image/jpeg;base64,${data.toString('base64')}`, width: info.width, height: info.height, format };
    } catch {
      throw unreadable(format === 'heif' ? 'HEIC photos cannot be decoded here; set the camera to "Most Compatible" or take a screenshot' : 'its file is damaged or incomplete');
    }
  }

  return {
    async read(image) {
      const format = judgeImage(image);
      return gate.run(() => decode(image.name, image.bytes, format));
    },
  };
}
