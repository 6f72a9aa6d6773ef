/**
 * `sharp` is loaded with the first image a replica reads (src/media/images.ts), not at start. A load
 * that fails (a broken install the image's build would have caught) fails that image's read with the
 * load's error, and the next image tries the load again rather than failing forever; once loaded, images
 * are read.
 */
import sharp from 'sharp';
import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.doUnmock('sharp');
  vi.resetModules();
});

describe('sharp loaded with the first image', () => {
  it('a failed load fails that read, and the next read loads it again', async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } }).png().toBuffer();
    let loads = 0;
    vi.resetModules();
    // The first load fails as sharp does when libvips is missing; the next one finds it.
    const real = sharp;
    vi.doMock('sharp', () => ({
      get default() {
        loads++;
        if (loads === 1) throw new Error('libvips-cpp.so: cannot open shared object file');
        return real;
      },
    }));
    const { createImageReader } = await import('../src/media/images.js');
    const reader = createImageReader();
    // No image read yet: nothing loaded.
    expect(loads).toBe(0);
    await expect(reader.read({ name: 'map.png', bytes: png })).rejects.toThrow(/cannot open shared object/);
    expect(loads).toBe(1);

    const read = await reader.read({ name: 'map.png', bytes: png });
    expect(read).toMatchObject({ name: 'map.png', format: 'png', width: 64, height: 48 });
    expect(read.dataUrl.startsWith('data:image/jpeg;base64,')).toBe(true);
    expect(loads).toBe(2);
    // Loaded: later images use it without loading again.
    await reader.read({ name: 'again.png', bytes: png });
    expect(loads).toBe(2);
  });

  it('two first images at once share one load', async () => {
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#112233' } }).png().toBuffer();
    let loads = 0;
    vi.resetModules();
    const real = sharp;
    vi.doMock('sharp', () => {
      loads++;
      return { default: real };
    });
    const { createImageReader } = await import('../src/media/images.js');
    const reader = createImageReader();
    const both = await Promise.all([reader.read({ name: 'a.png', bytes: png }), reader.read({ name: 'b.png', bytes: png })]);
    expect(both.map((r) => r.width)).toEqual([32, 32]);
    expect(loads).toBe(1);
  });
});
