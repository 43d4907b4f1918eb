import { useContext } from 'react'
import type { ImageProps } from './image.ts'
import { ImageVariantsContext } from './image-variants-context.ts'

type PictureProps = {
  image: ImageProps
  className?: string
  /** The page's main image (largest paint): load it first, never lazily. */
  priority?: boolean
  /** How wide the image shows, for the browser to pick a variant (CSS `sizes`). */
  sizes?: string
  /** Loaded with the page, not when it comes near the viewport (a logo at the top; `priority` implies it). */
  eager?: boolean
  /** Fills its container's width (the default); false leaves its size to `className` (a logo sized by its height). */
  fill?: boolean
}

/**
 * An image from public/ with its intrinsic size, so the layout never shifts while it loads; where the build
 * made AVIF/WebP variants of it, a <picture> lets each browser take the smallest that fits.
 */
export function Picture({
  image,
  className = '',
  priority = false,
  sizes = '(min-width: 1024px) 50vw, 100vw',
  eager = priority,
  fill = true,
}: PictureProps) {
  const variants = useContext(ImageVariantsContext)[image.src]
  const img = (
    <img
      src={image.src}
      alt={image.alt}
      width={image.width}
      height={image.height}
      loading={eager ? 'eager' : 'lazy'}
      decoding={priority ? 'sync' : 'async'}
      fetchPriority={priority ? 'high' : 'auto'}
      className={fill ? `h-auto w-full ${className}` : className}
    />
  )
  if (!variants) return img
  return (
    <picture>
      {variants.sources.map((source) => (
        <source key={source.type} type={source.type} srcSet={source.srcset} sizes={sizes} />
      ))}
      {img}
    </picture>
  )
}
