import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import type { ImageManifest } from '../../schema/page-config.ts'
import { buildImageVariants, svgWidthsFor, widthsFor } from '../../src/build/image-variants.ts'
import { loadPageConfig } from '../../src/config/load-page-config.ts'
import { secondLaunchConfig, secondLaunchDir } from '../fixtures/second-launch.ts'

// Only the images matter to buildImageVariants; the rest of a config is irrelevant here.
const configNaming = (...images: { src: string; width: number; height: number }[]): PageConfig =>
  ({
    sections: images.map((image) => ({ type: 'feature', heading: 'x', body: ['x'], image: { ...image, alt: '' } })),
  }) as unknown as PageConfig

function srcsetWidths(srcset: string): number[] {
  return srcset.split(', ').map((entry) => Number(/ (\d+)w$/.exec(entry)?.[1]))
}

function fileOf(outDir: string, srcsetEntry: string): string {
  return path.join(outDir, decodeURI(srcsetEntry.split(' ')[0]!))
}

describe('buildImageVariants', () => {
  let publicDir: string
  let outDir: string
  let manifest: ImageManifest

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'variants-'))
    publicDir = path.join(dir, 'public')
    outDir = path.join(dir, 'dist')
    mkdirSync(path.join(publicDir, 'images', 'homes'), { recursive: true })
    // A real photo-sized JPEG, a small PNG, a JPEG stored sideways with an EXIF rotation, and an SVG.
    const scene = `<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="1000"><defs><linearGradient id="g"><stop offset="0" stop-color="#f4b860"/><stop offset="1" stop-color="#3b6ea5"/></linearGradient></defs><rect width="2000" height="1000" fill="url(#g)"/><circle cx="1400" cy="300" r="180" fill="#fff3c4"/><path d="M0 700 Q500 560 1000 700 T2000 680 V1000 H0Z" fill="#4f7d43"/></svg>`
    await sharp(Buffer.from(scene))
      .jpeg({ quality: 80 })
      .toFile(path.join(publicDir, 'images', 'large.jpg'))
    await sharp({ create: { width: 300, height: 200, channels: 4, background: '#3a6' } })
      .png()
      .toFile(path.join(publicDir, 'images', 'homes', 'small.png'))
    await sharp({ create: { width: 600, height: 300, channels: 3, background: '#a63' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toFile(path.join(publicDir, 'images', 'sideways.jpg'))
    writeFileSync(
      path.join(publicDir, 'images', 'logo.svg'),
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>',
    )
    manifest = await buildImageVariants(
      configNaming(
        { src: '/images/large.jpg', width: 2000, height: 1000 },
        { src: '/images/homes/small.png', width: 300, height: 200 },
        { src: '/images/sideways.jpg', width: 300, height: 600 },
        { src: '/images/logo.svg', width: 10, height: 10 },
        { src: '/images/large.jpg', width: 2000, height: 1000 },
      ),
      publicDir,
      outDir,
    )
  })

  it('lists each image once, SVGs too', () => {
    expect(Object.keys(manifest).sort()).toEqual([
      '/images/homes/small.png',
      '/images/large.jpg',
      '/images/logo.svg',
      '/images/sideways.jpg',
    ])
  })

  it('gives the intrinsic size and AVIF then WebP sources at 480, 960 and 1600 px, never upscaled', async () => {
    const large = manifest['/images/large.jpg']!
    expect([large.width, large.height]).toEqual([2000, 1000])
    expect(large.sources.map((s) => s.type)).toEqual(['image/avif', 'image/webp'])
    for (const source of large.sources) {
      expect(srcsetWidths(source.srcset)).toEqual([480, 960, 1600])
      for (const entry of source.srcset.split(', ')) {
        expect(entry).toMatch(/^\/images\/_v\/large\.[0-9a-f]{10}-\d+\.(avif|webp) \d+w$/)
        const meta = await sharp(fileOf(outDir, entry)).metadata()
        expect(meta.width).toBe(srcsetWidths(entry)[0])
        expect(meta.format).toBe(source.type === 'image/avif' ? 'heif' : 'webp')
      }
    }
  })

  it('makes an image smaller than 480 px at its own width only, keeping its folder in the name', () => {
    const small = manifest['/images/homes/small.png']!
    expect([small.width, small.height]).toEqual([300, 200])
    expect(small.sources.map((s) => s.srcset)).toEqual([
      expect.stringMatching(/^\/images\/_v\/homes\/small\.[0-9a-f]{10}-300\.avif 300w$/),
      expect.stringMatching(/^\/images\/_v\/homes\/small\.[0-9a-f]{10}-300\.webp 300w$/),
    ])
  })

  it('reports the size as displayed for a photo with an EXIF rotation, and writes it upright', async () => {
    const sideways = manifest['/images/sideways.jpg']!
    expect([sideways.width, sideways.height]).toEqual([300, 600])
    const entry = sideways.sources[1]!.srcset.split(', ')[0]!
    const meta = await sharp(fileOf(outDir, entry)).metadata()
    expect([meta.width, meta.height]).toEqual([300, 600])
  })

  it('reuses the files of an unchanged image on the next build', async () => {
    const entry = manifest['/images/large.jpg']!.sources[0]!.srcset.split(', ')[0]!
    const before = statSync(fileOf(outDir, entry)).mtimeMs
    const again = await buildImageVariants(
      configNaming({ src: '/images/large.jpg', width: 2000, height: 1000 }),
      publicDir,
      outDir,
    )
    expect(again['/images/large.jpg']).toEqual(manifest['/images/large.jpg'])
    expect(statSync(fileOf(outDir, entry)).mtimeMs).toBe(before)
    expect(readdirSync(path.join(outDir, 'images', '_v')).some((name) => name.endsWith('.part'))).toBe(false)
  })

  it('makes variants of every image of the second development, its SVGs and its small logo too', async () => {
    const config = loadPageConfig(secondLaunchConfig)
    const fixtureManifest = await buildImageVariants(
      config,
      path.join(secondLaunchDir, 'public'),
      mkdtempSync(path.join(tmpdir(), 'variants-')),
    )
    expect(Object.keys(fixtureManifest).sort()).toEqual([
      '/images/detached.svg',
      '/images/hero.jpg',
      '/images/logo.svg',
      '/images/map.svg',
      '/images/og-image.jpg',
      '/images/townhome.svg',
      '/images/trail.png',
    ])
    expect(srcsetWidths(fixtureManifest['/images/trail.png']!.sources[0]!.srcset)).toEqual([480, 960, 1200])
    // The logo, 240 px wide: as wide as it is, and twice and three times that for sharp phone screens.
    expect(srcsetWidths(fixtureManifest['/images/logo.svg']!.sources[0]!.srcset)).toEqual([240, 480, 720])
  }, 120_000)

  it('makes variants of every SVG: a large one at each width, a small one at once, twice and three times its own', async () => {
    // 300 trees: an illustration's weight (about 15 KB), 1200 × 600.
    const trees = Array.from(
      { length: 300 },
      (_, i) =>
        `<circle cx="${(i * 37) % 1200}" cy="${300 + ((i * 53) % 250)}" r="${20 + (i % 15)}" fill="#${(0x2f5d3a + i * 0x010203).toString(16).slice(-6)}"/>`,
    )
    const illustration = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="600" viewBox="0 0 1200 600"><rect width="1200" height="600" fill="#e2d9b6"/>${trees.join('')}<rect x="0" y="599" width="1200" height="1" fill="#000"/></svg>`
    writeFileSync(path.join(publicDir, 'images', 'street.svg'), illustration)
    const svgs = await buildImageVariants(
      configNaming(
        { src: '/images/street.svg', width: 1200, height: 600 },
        { src: '/images/logo.svg', width: 10, height: 10 },
      ),
      publicDir,
      outDir,
    )
    expect(Object.keys(svgs)).toEqual(['/images/street.svg', '/images/logo.svg'])
    const logo = svgs['/images/logo.svg']!.sources[0]!.srcset
    expect(srcsetWidths(logo)).toEqual([10, 20, 30])
    // Drawn at three times its size, not scaled up from a 10-pixel raster (which sharp would refuse to enlarge).
    await expect(
      sharp(fileOf(outDir, logo.split(', ').at(-1)!))
        .metadata()
        .then((m) => [m.width, m.height]),
    ).resolves.toEqual([30, 30])
    const street = svgs['/images/street.svg']!
    expect([street.width, street.height]).toEqual([1200, 600])
    expect(street.sources.map((s) => s.type)).toEqual(['image/avif', 'image/webp'])
    const webp = street.sources[1]!.srcset
    expect(srcsetWidths(webp)).toEqual([480, 960, 1200])
    // Drawn faithfully at its full width: the 1-pixel dark line along the bottom edge is still there.
    const largest = fileOf(outDir, webp.split(', ').at(-1)!)
    const { data, info } = await sharp(largest).raw().toBuffer({ resolveWithObject: true })
    expect([info.width, info.height]).toEqual([1200, 600])
    const bottomRow = data.subarray(
      (info.height - 1) * info.width * info.channels,
      info.height * info.width * info.channels,
    )
    expect(Math.max(...bottomRow.filter((_, i) => i % info.channels === 0))).toBeLessThan(80)
  }, 120_000)

  it('fails in plain words when an image is missing', async () => {
    await expect(
      buildImageVariants(configNaming({ src: '/images/gone.jpg', width: 1, height: 1 }), publicDir, outDir),
    ).rejects.toThrow(`The image /images/gone.jpg named in the config is not in ${publicDir}.`)
  })
})

describe('widthsFor', () => {
  it('adds the original width when it is below the largest, and never goes above it', () => {
    expect(widthsFor(3000)).toEqual([480, 960, 1600])
    expect(widthsFor(1600)).toEqual([480, 960, 1600])
    expect(widthsFor(1200)).toEqual([480, 960, 1200])
    expect(widthsFor(480)).toEqual([480])
    expect(widthsFor(200)).toEqual([200])
  })
})

describe('svgWidthsFor', () => {
  it("draws a small SVG at once, twice and three times its width, within the largest width, and a large one as any picture's", () => {
    expect(svgWidthsFor(220)).toEqual([220, 440, 660])
    expect(svgWidthsFor(600)).toEqual([480, 600, 1200])
    expect(svgWidthsFor(1000)).toEqual([480, 960, 1000])
    expect(svgWidthsFor(3000)).toEqual([480, 960, 1600])
  })
})
