package postal

// Available reports whether the postal data was built into this binary and reads correctly.
func Available() bool { return load() != nil }

// LoadError says why the data is unavailable, or nil when it is available.
func LoadError() error {
	_, err := loadTable()
	return err
}
