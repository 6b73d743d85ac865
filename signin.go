package tabguard

import "github.com/tabguard/tabguard/tabstate"

// SignIn is a server's request for credentials, as Options.Credentials
// sees it; see [tabstate.SignIn].
type SignIn = tabstate.SignIn

// Credentials answer a [SignIn]; see [tabstate.Credentials].
type Credentials = tabstate.Credentials
