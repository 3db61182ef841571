package hop

// Test hooks for contract_test.go, which is outside the package.
var (
	SyntheticReport = syntheticReport
	SweepReport     = sweepReport
)
