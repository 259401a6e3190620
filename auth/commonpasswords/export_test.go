package commonpasswords

// Len is the number of distinct entries on the list, for the test that the list was read whole.
func Len() int { return len(set()) }
