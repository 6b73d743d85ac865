// Package engine is the guard itself, written once for every browser
// driver: call admission and the calls in flight, the deadline and its
// cut-offs, the lifecycle calls, the dialog policy, the probes that say
// why a call timed out, DOM reads, and the registry of a browser's tabs.
//
// A backend (package tabguard on go-rod/rod, package chromedpguard on
// chromedp) is an adapter: it implements [Driver] to send commands and
// say what its errors mean, pushes the CDP events it receives into a
// [Browser] and its [Tab]s, and types the results of its own eval. Nothing
// here knows which driver it runs on, and the package imports neither.
//
// driver.go lists everything an adapter provides. Events flow in through
// the intake methods ([Browser.TargetCreated], [Tab.Apply], ...), which never
// block and never send a command, so a driver may call them from the
// goroutine that reads its socket. Commands flow out through [Session.Call].
package engine
