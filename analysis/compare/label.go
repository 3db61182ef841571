package compare

// Label is how a row is named in every form of the comparison: the row's
// path, with its sweep point when the runs sweep. The name carries the
// regime when a run had more than one.
func Label(r Row) string {
	if r.Setting == "" {
		return r.Name
	}
	return r.Name + " (" + r.Setting + ")"
}
