package results

// t975 is the 97.5th percentile of Student's t distribution for 1..30 degrees
// of freedom: the multiplier of the standard error in a two-sided 95%
// confidence interval. Values from the standard tables (to 9 digits); the
// tests check them against montanaflynn/stats' t-test p-values.
var t975 = [...]float64{
	1: 12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836,
	2.446911851, 2.364624252, 2.306004135, 2.262157163, 2.228138852,
	2.200985160, 2.178812830, 2.160368656, 2.144786688, 2.131449546,
	2.119905299, 2.109815578, 2.100922040, 2.093024054, 2.085963447,
	2.079613845, 2.073873068, 2.068657610, 2.063898562, 2.059538553,
	2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456,
}

// z975 is the 97.5th percentile of the standard normal distribution.
const z975 = 1.959963984540054

// studentT975 returns the two-sided 95% multiplier for dof degrees of freedom.
// Past the table it uses the Cornish-Fisher expansion of t around the normal
// quantile (Abramowitz & Stegun 26.7.5), accurate to better than 1e-6 there.
// dof < 1 has no interval; it returns 0 so the interval collapses to a point.
func studentT975(dof int) float64 {
	if dof < 1 {
		return 0
	}
	if dof < len(t975) {
		return t975[dof]
	}
	z, v := z975, float64(dof)
	z2 := z * z
	g1 := (z2 + 1) * z / 4
	g2 := ((5*z2+16)*z2 + 3) * z / 96
	g3 := (((3*z2+19)*z2+17)*z2 - 15) * z / 384
	g4 := ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) * z / 92160
	return z + g1/v + g2/(v*v) + g3/(v*v*v) + g4/(v*v*v*v)
}
