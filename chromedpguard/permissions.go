package chromedpguard

import "github.com/tabguard/tabguard/tabstate"

// PermissionGrant grants browser permissions to one origin
// (Options.Permissions); see [tabstate.PermissionGrant]. Every other
// permission of [tabstate.PromptingPermissions] stays denied.
type PermissionGrant = tabstate.PermissionGrant
