import type { Hono } from 'hono'
import type { StudioContext, StudioEnv } from './context.ts'
import { addAllocationRoutes } from './api/allocation-routes.ts'
import { addAuditRoutes } from './api/audit-routes.ts'
import { addDraftRoutes } from './api/draft-routes.ts'
import { addDraftSaveRoutes } from './api/draft-save-routes.ts'
import { addPresenceRoutes } from './api/presence-routes.ts'
import { addLaunchRoutes } from './api/launch-routes.ts'
import { addMeRoutes, addTotpRoutes } from './api/me-routes.ts'
import { addPeopleRoutes } from './api/people-routes.ts'
import { addPublishRoutes } from './api/publish-routes.ts'
import { addVersionRoutes } from './api/version-routes.ts'

/**
 * The studio's JSON API under /studio/api (src/studio/protocol.ts), one file per resource in api/: the signed-in
 * person, launches, drafts, checks, publishing, versions and restoring, people and the audit log. The session and the
 * Origin are checked before any route here (studio.ts); each route checks the role and the launches the account may
 * touch (api/access.ts).
 */

/** Adds the API's routes to the studio app (mounted under /studio). */
export function addApi(app: Hono<StudioEnv>, ctx: StudioContext): void {
  addMeRoutes(app, ctx)
  addLaunchRoutes(app, ctx)
  addDraftRoutes(app, ctx)
  addDraftSaveRoutes(app, ctx)
  addPresenceRoutes(app, ctx)
  addPublishRoutes(app, ctx)
  addVersionRoutes(app, ctx)
  addPeopleRoutes(app, ctx)
  addAuditRoutes(app, ctx)
  addTotpRoutes(app, ctx)
  addAllocationRoutes(app, ctx)
}
