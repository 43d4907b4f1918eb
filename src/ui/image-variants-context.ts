import { createContext } from 'react'
import type { ImageManifest } from '../../schema/page-config.ts'

/** The responsive variants the build made, by image src; empty in the dev server (plain images there). */
export const ImageVariantsContext = createContext<ImageManifest>({})
