/**
 * Issue 77, items 2-5, the readers in isolation: a message's attachments taken out of its words as the
 * front end writes them (message-attachments.ts), `/v1` image parts written the same way
 * (openai-request.ts), which models see and what an image costs them (model/vision.ts), and the
 * image's bytes judged before any decoding (media/images.ts).
 */
import { describe, expect, it } from 'vitest';
import { sniffImage } from '../src/media/images.js';
import { imageTokens, VisionModels } from '../src/model/vision.js';
import { DEFAULT_VISION_MODELS } from '../src/config/models.js';
import { ATTACHMENT_LIMITS, noteAttachments, splitMessage, wordsOf } from '../src/request/message-attachments.js';
import { openAIChatRequestSchema, toChatRequestBody } from '../src/request/openai-request.js';

const b64 = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + 7) % 256)).toString('base64');
const image = (name: string, bytes = 3_000, type = 'image/png') => `![${name}](data:${type};base64,${b64(bytes)})`;

describe('splitMessage: the current message', () => {
  it('takes images and files out of the words, in their order, and keeps the words whole', () => {
    const text = `Which room is this in?\n\n${image('flyer.png')}\n\n**Attached:** notes.md\n\`\`\`markdown\n# Notes\nRoom GHC 4401\n\`\`\`\n\nthanks`;
    const { words, attachments } = splitMessage(text);
    expect(words).toBe('Which room is this in?\n\nthanks');
    expect(attachments.images.map((i) => [i.name, i.bytes.length])).toEqual([['flyer.png', 3_000]]);
    expect(attachments.files).toEqual([{ name: 'notes.md', text: '# Notes\nRoom GHC 4401', bytes: 21 }]);
  });

  it('reads a file whose text holds a shorter fence, a CRLF message and a file left open at the end', () => {
    const inner = '**Attached:** a.md\r\n````\r\nuse ```js\r\ncode\r\n```\r\n````\r\nafter';
    expect(splitMessage(inner).attachments.files[0]!.text).toBe('use ```js\r\ncode\r\n```');
    expect(splitMessage(inner).words).toBe('after');
    const open = splitMessage('look\n**Attached:** b.txt\n```\nline one\nline two');
    expect(open).toMatchObject({ words: 'look', attachments: { files: [{ name: 'b.txt', text: 'line one\nline two' }] } });
  });

  it('leaves words alone: a header with no fence after it, a short base64-looking token, a link that is not an image', () => {
    for (const text of ['**Attached:** nothing here', 'my key id is QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=', 'see [the map](https://maps.example/GHC)']) {
      expect(splitMessage(text)).toEqual({ words: text, attachments: { images: [], files: [], imageLinks: [] } });
    }
  });

  it('reads a small image (an icon of a few hundred bytes) as an image too, whatever its name holds', () => {
    const { words, attachments } = splitMessage(`what is this icon? ${image('logo, v2 (small).png', 200)}`);
    expect(words).toBe('what is this icon?');
    expect(attachments.images.map((i) => [i.name, i.bytes.length])).toEqual([['logo, v2 small .png', 200]]);
    expect(noteAttachments(`see ${image('a.png', 200)}`)).toBe('see [attachment left out: image/png "a.png", 1 KB]');
  });

  it('names an image link as one it will not fetch, and a bare image data URL as an image', () => {
    expect(splitMessage('what is ![poster](https://example.com/p.png) about?')).toMatchObject({ words: 'what is  about?', attachments: { imageLinks: ['poster'] } });
    expect(splitMessage(`this: data:image/jpeg;base64,${b64(2_000)}`).attachments.images[0]!.name).toBe('image 1');
  });

  it('writes a name so it cannot break the answer or the note: one line, no brackets or quotes, 80 characters', () => {
    const { attachments } = splitMessage(image('a "quoted" `name` <b>with</b> *marks*'.padEnd(200, 'x')));
    expect(attachments.images[0]!.name).toMatch(/^a quoted name b with \/b marks x+$/);
    expect(attachments.images[0]!.name.length).toBeLessThanOrEqual(80);
  });

  it('refuses what passes a limit, naming it and the limit', () => {
    const tooMany = Array.from({ length: ATTACHMENT_LIMITS.count + 1 }, (_, i) => image(`p${i}.png`)).join('\n');
    expect(() => splitMessage(tooMany)).toThrow('the message carries 9 attachments; at most 8 are read at once');
    expect(() => splitMessage(image('big.png', 513 * 1024))).toThrow('the image "big.png" is 513 KB; images of up to 512 KB are read');
    const bigFile = `**Attached:** log.txt\n\`\`\`\n${'x'.repeat(401 * 1024)}\n\`\`\``;
    expect(() => splitMessage(bigFile)).toThrow('the file "log.txt" is 401 KB; files of up to 400 KB are read');
    const five = Array.from({ length: 5 }, (_, i) => image(`p${i}.png`, 500 * 1024)).join('\n');
    expect(() => splitMessage(five)).toThrow("the message's attachments are 2.4 MB together; up to 2.0 MB are read");
    expect(() => splitMessage(`data:application/pdf;base64,${b64(5_000)}`)).toThrow(/attachment \(application\/pdf, 5 KB\) that the assistant cannot read/);
  });
});

describe('noteAttachments and wordsOf: earlier messages and titles', () => {
  it('makes each attachment a note of its kind, name and size', () => {
    const text = `Which building?\n${image('flyer.png', 300_000)}\n**Attached:** notes.txt\n\`\`\`\nsecret\n\`\`\`\nand ![p](https://e.com/p.png)`;
    expect(noteAttachments(text)).toBe(
      'Which building?\n[attachment left out: image/png "flyer.png", 293 KB]\n[attachment left out: text file "notes.txt", 1 KB]\nand [attachment left out: image link "p"]',
    );
    expect(wordsOf(text)).toBe('Which building?\n\nand');
    expect(wordsOf(image('only.png'))).toBe('only.png');
    expect(noteAttachments('plain words')).toBe('plain words');
  });
});

describe('/v1 image parts', () => {
  const body = (messages: unknown[]) => toChatRequestBody(openAIChatRequestSchema.parse({ model: 'campus-agent', messages }), undefined);

  it('reads the current message\'s image parts as attachments, in either URL form, and notes those of earlier messages', () => {
    const url = `data:image/png;base64,${b64(4_000)}`;
    const parsed = body([
      { role: 'user', content: [{ type: 'text', text: 'old' }, { type: 'image_url', image_url: { url } }] },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: [{ type: 'text', text: 'Where is this?' }, { type: 'image_url', image_url: { url, detail: 'low' } }, { type: 'image_url', image_url: 'https://e.com/x.png' }] },
    ]);
    expect(parsed.query).toBe('Where is this?');
    expect(parsed.attachments?.images.map((i) => i.name)).toEqual(['image 1']);
    expect(parsed.attachments?.imageLinks).toEqual(['image 2']);
    expect(parsed.message_history?.[0]?.content).toBe('old\n[attachment left out: image/png "image 1", 4 KB]');
  });
});

describe('which models see, and what an image costs', () => {
  const vision = new VisionModels(DEFAULT_VISION_MODELS);

  it('takes the documented families in and the rest out', () => {
    for (const m of ['openai/gpt-4o-mini', 'openai/gpt-4o', 'openai/gpt-4.1-nano', 'openai/o3', 'anthropic/claude-3.5-sonnet', 'google/gemini-2.0-flash-001', 'meta-llama/llama-3.2-11b-vision-instruct']) {
      expect(vision.sees(m), m).toBe(true);
    }
    for (const m of ['openai/gpt-3.5-turbo', 'openai/o3-mini', 'openai/o1-mini', 'openai/gpt-4o-audio-preview', 'mistralai/mistral-7b-instruct', 'acme/unknown']) {
      expect(vision.sees(m), m).toBe(false);
    }
    expect(new VisionModels('none').sees('openai/gpt-4o')).toBe(false);
    expect(new VisionModels('acme/see*,!acme/see-not').sees('acme/see-1')).toBe(true);
    expect(new VisionModels('acme/see*,!acme/see-not').sees('acme/see-not')).toBe(false);
  });

  it('prices by the model\'s rule: tiles, patches, area', () => {
    // gpt-4o at 1,536 × 1,152: scaled to 1,024 × 768, 2 × 2 tiles.
    expect(imageTokens('openai/gpt-4o', 1_536, 1_152)).toBe(85 + 170 * 4);
    expect(imageTokens('openai/gpt-4o-mini', 1_536, 1_152)).toBe(2_833 + 5_667 * 4);
    expect(imageTokens('openai/gpt-4o', 512, 400)).toBe(85 + 170);
    expect(imageTokens('openai/gpt-4.1-mini', 1_536, 1_152)).toBe(Math.ceil(1_536 * 1.62));
    expect(imageTokens('openai/gpt-4.1-mini', 320, 320)).toBe(Math.ceil(100 * 1.62));
    expect(imageTokens('anthropic/claude-3.5-sonnet', 1_536, 1_152)).toBe(Math.ceil((1_536 * 1_152) / 750));
    expect(imageTokens('acme/vision', 100, 100)).toBe(1_600);
  });
});

describe('an image judged by its bytes', () => {
  it('names raster formats by their first bytes, markup as SVG, anything else as nothing', () => {
    expect(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('jpeg');
    expect(sniffImage(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('png');
    expect(sniffImage(Buffer.from('GIF89a....'))).toBe('gif');
    expect(sniffImage(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('webp');
    expect(sniffImage(Buffer.from('\0\0\0\x18ftypheic'))).toBe('heif');
    expect(sniffImage(Buffer.from('\uFEFF  <?xml version="1.0"?><svg/>'))).toBe('svg');
    expect(sniffImage(Buffer.from('%PDF-1.7'))).toBeNull();
  });
});
