package testbed

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// RetryUnknownTopic runs do again while it fails with
// UNKNOWN_TOPIC_OR_PARTITION, for at most bound: a 3.9 broker learns of a
// topic just created a little after ZooKeeper holds it.
func RetryUnknownTopic(bound time.Duration, do func() error) error {
	until := time.Now().Add(bound)
	for {
		err := do()
		if !errors.Is(err, kerr.UnknownTopicOrPartition) || time.Now().After(until) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// DeleteTopicsAndWait deletes topics through adm and waits (at most
// bound) until the cluster no longer lists them, so that the next test
// reads a source without them. Topics already gone are fine.
func DeleteTopicsAndWait(t testing.TB, adm *kadm.Client, bound time.Duration, topics ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	res, err := adm.DeleteTopics(ctx, topics...)
	if err != nil {
		t.Errorf("cleanup: deleting %v: %v", topics, err)
		return
	}
	for _, r := range res {
		if r.Err != nil && !errors.Is(r.Err, kerr.UnknownTopicOrPartition) {
			t.Errorf("cleanup: deleting %s: %v", r.Topic, r.Err)
		}
	}
	for {
		md, err := adm.ListTopics(ctx, topics...)
		if err == nil {
			left := 0
			for _, d := range md {
				if d.Err == nil {
					left++
				}
			}
			if left == 0 {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Errorf("cleanup: topics %v still listed after %s", topics, bound)
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Check reports a cleanup step's error (a test that leaves state behind
// breaks the tests after it).
func Check(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("cleanup: %s: %v", what, err)
	}
}

// DeleteACLs deletes the ACLs each builder matches, reporting failures.
func DeleteACLs(t testing.TB, adm *kadm.Client, bs ...*kadm.ACLBuilder) {
	t.Helper()
	for _, b := range bs {
		res, err := adm.DeleteACLs(context.Background(), b)
		Check(t, "deleting ACLs", err)
		for _, r := range res {
			Check(t, "deleting ACLs", r.Err)
		}
	}
}

// RemoveUserQuota removes quota keys of one user entity, reporting failures.
func RemoveUserQuota(t testing.TB, adm *kadm.Client, user string, keys ...string) {
	t.Helper()
	var ops []kadm.AlterClientQuotaOp
	for _, k := range keys {
		ops = append(ops, kadm.AlterClientQuotaOp{Key: k, Remove: true})
	}
	res, err := adm.AlterClientQuotas(context.Background(), []kadm.AlterClientQuotaEntry{{Entity: kadm.ClientQuotaEntity{{Type: "user", Name: &user}}, Ops: ops}})
	Check(t, "removing the quota of "+user, err)
	for _, r := range res {
		Check(t, "removing the quota of "+user, r.Err)
	}
}

// DeleteSCRAM deletes one user's SCRAM credential, reporting failures.
func DeleteSCRAM(t testing.TB, adm *kadm.Client, user string, mech kadm.ScramMechanism) {
	t.Helper()
	res, err := adm.AlterUserSCRAMs(context.Background(), []kadm.DeleteSCRAM{{User: user, Mechanism: mech}}, nil)
	if err == nil {
		err = res.Error()
	}
	Check(t, "deleting the SCRAM credential of "+user, err)
}
