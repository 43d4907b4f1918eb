import type { ImageProps } from './image.ts'

type PictureProps = {
  image: ImageProps
  className?: string
  /** The page's main image (largest paint): load it first, never lazily. */
  priority?: boolean
  /** The CSS sizes hint for responsive variants. */
  sizes?: string
}

/** An image from public/ with its intrinsic size, so the layout never shifts while it loads. */
export function Picture({ image, className = '', priority = false }: PictureProps) {
  return (
    <img
      src={image.src}
      alt={image.alt}
      width={image.width}
      height={image.height}
      loading={priority ? 'eager' : 'lazy'}
      decoding={priority ? 'sync' : 'async'}
      fetchPriority={priority ? 'high' : 'auto'}
      className={`h-auto w-full ${className}`}
    />
  )
}
