// Package catalogue holds what Kafka itself defines and the tool must know,
// as plain tables with no I/O: the type of each config key (so values are
// compared by meaning), the keys Kafka treats as secrets, value floors and
// removed keys per target version, and Kafka's internal topics; and the
// one finding vocabulary (Findings): every id check, the readers and the
// plan report, listed in docs/checks.md. The readers, plan, apply and check
// all read it, so one fact has one home.
package catalogue
