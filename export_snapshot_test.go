package tabguard

// RefTarget is the watcher's Tab.RefTarget, for the tests of refs.
func RefTarget(w *Watcher, ref string) (frameID, local string, err error) { return w.t.RefTarget(ref) }
