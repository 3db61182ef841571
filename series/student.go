package series

import "gonum.org/v1/gonum/stat/distuv"

// studentT975 returns the two-sided 95% multiplier of the standard error
// for dof degrees of freedom: the 97.5th percentile of Student's t
// distribution, from gonum's quantile function (the inverse of the
// regularized incomplete beta function), for any dof. dof < 1 has no
// interval; it returns 0 so the interval collapses to a point.
func studentT975(dof int) float64 {
	if dof < 1 {
		return 0
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(dof)}.Quantile(0.975)
}
