// Package syncer keeps a target cluster in step with a live ZooKeeper
// source: after a first full round it waits on the source's change feed
// (zkfeed), re-reads just the entities a notification names (a scoped
// zkread over the same connection), plans for just those resources and
// applies them; a periodic full reconciliation is the safety net, and
// anything it finds is reported as drift. Frozen, it applies nothing and
// reports every change made to the source after the cut.
//
// The command gives the stages (how to read the target, plan with the
// operator's options, and apply and record a plan); the package decides
// when to run them and reports each round as a value. It never writes to
// ZooKeeper.
package syncer
