package apply

import (
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// quota: AlterClientQuotas, setting the after-state's keys and removing the
// before-state's keys the after-state lacks.
var quotaKind = &kindSpec{
	rpc: always(alterClientQuotas),
}

var alterClientQuotas = &rpc{name: RPCAlterClientQuotas, validateOnly: true, build: func(r *runner, b []*plan.Change, validate bool) (kmsg.Request, func(kmsg.Response, []outcome)) {
	req := kmsg.NewPtrAlterClientQuotasRequest()
	req.ValidateOnly = validate
	for _, c := range b {
		e := kmsg.NewAlterClientQuotasRequestEntry()
		e.Entity = quotaEntity(c.Resource.Entity)
		for k, v := range c.After.Quota {
			op := kmsg.NewAlterClientQuotasRequestEntryOp()
			op.Key, op.Value = k, v
			e.Ops = append(e.Ops, op)
		}
		for k := range c.Before.Quota {
			if _, ok := c.After.Quota[k]; !ok {
				op := kmsg.NewAlterClientQuotasRequestEntryOp()
				op.Key, op.Remove = k, true
				e.Ops = append(e.Ops, op)
			}
		}
		slices.SortFunc(e.Ops, func(a, b kmsg.AlterClientQuotasRequestEntryOp) int { return strings.Compare(a.Key, b.Key) })
		req.Entries = append(req.Entries, e)
	}
	idx := indexByName(b)
	return req, func(resp kmsg.Response, out []outcome) {
		for _, e := range resp.(*kmsg.AlterClientQuotasResponse).Entries {
			var ent snapshot.QuotaEntity
			for _, c := range e.Entity {
				ent = append(ent, snapshot.EntityComponent{Type: c.Type, Name: deref(c.Name), Default: c.Name == nil})
			}
			slices.SortStableFunc(ent, func(a, b snapshot.EntityComponent) int { return entityOrder(a.Type) - entityOrder(b.Type) })
			idx.set(out, ent.String(), e.ErrorCode, e.ErrorMessage)
		}
	}
}}

func entityOrder(t string) int {
	switch t {
	case snapshot.EntityUser:
		return 0
	case snapshot.EntityClientID:
		return 1
	}
	return 2
}

func quotaEntity(e snapshot.QuotaEntity) []kmsg.AlterClientQuotasRequestEntryEntity {
	out := make([]kmsg.AlterClientQuotasRequestEntryEntity, 0, len(e))
	for _, c := range e {
		x := kmsg.NewAlterClientQuotasRequestEntryEntity()
		x.Type = c.Type
		if !c.Default {
			name := c.Name
			x.Name = &name
		}
		out = append(out, x)
	}
	return out
}
