// Package series summarises repeated runs of one measurement: the first
// runs discarded, the rest given as mean, median, standard deviation, a 95%
// confidence interval of the mean (Student's t, from gonum) and a
// distribution-free one of the median, with outlier runs named; paired
// differences of interleaved rounds; and least-squares line fits. It is
// the statistics that need gonum, a room of its own beside package stats
// so that stats imports only the histogram library and a binary that only
// records latencies (hoprelay) links neither; it imports stats, gonum's
// distuv and montanaflynn/stats.
package series
