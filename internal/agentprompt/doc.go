// Package agentprompt is what the example servers (examples/mcpserver and
// examples/controlserver) share to answer a page's prompts for an agent:
// the sign-ins and file choosers a tab meets, which a
// [github.com/tabguard/tabguard.Watcher] hands to its Options.Credentials
// and Options.FileChooser.
//
// A server reads its configuration once as it starts ([LoadConfig]: the
// -credentials file and the -upload-dir), keeps what the agent set on each
// tab in a [State], and makes the state's callbacks its watchers' own
// ([State.SetCallbacks]): a page gets credentials or files only where the
// agent asked for them. [Click] presses at a point as a user would and
// reports what a file input it opened took.
//
// The servers keep their flags, their tool or endpoint handlers and their
// wording; what they pass in (such as the words of [Config.SignInOrigin]'s
// remedy) is all that differs. The package imports tabguard and rod, never
// an MCP or HTTP framework, and nothing for chromedp users imports it.
package agentprompt
