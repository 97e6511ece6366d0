// Package stats summarises repeated measurements honestly: the mean of a
// sample with its standard error and a 95 % confidence interval, and the
// paired comparison of two methods measured on the same seeds.
//
// # Why paired
//
// When two methods are evaluated on the same trained model, the same
// split or the same initial weights (a seed), most of the seed-to-seed
// spread is shared by both: a lucky seed is lucky for both. Comparing the
// difference of the two means with either sample's standard deviation
// counts that shared spread as noise and hides real differences; it can
// also make a difference look small next to a spread that the pairing
// removes. Paired takes the per-seed differences a[i] − b[i] and
// summarises them: their mean, its standard error s/√n and a 95 %
// interval from Student's t distribution with n − 1 degrees of freedom.
// An interval that excludes zero says the difference is larger than the
// seeds' noise; one that contains zero says the seeds cannot tell the
// methods apart (not that they are equal).
//
// # Reading the numbers
//
// Summary.String prints "mean ± SE (95 % CI [lo, hi], n = N)". With fewer
// than two values there is no spread: SE and the interval are NaN and
// Summarise returns an error, as it does for an empty sample or one that
// holds NaN or an infinity. Use at least five seeds where a conclusion
// rests on a spread; with n = 2 the t quantile is 12.7 and the interval
// is wide, which is the honest answer.
//
// BUG(gnnlab): the interval assumes the values (or the paired
// differences) are roughly normal and independent; accuracies near 0 or
// 100 % and heavy-tailed timings break that, and no bootstrap is offered
// yet.
package stats
