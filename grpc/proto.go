package grpc

import "errors"

// The health messages (grpc/health/v1/health.proto) on the protobuf wire:
//
//	message HealthCheckRequest  { string service = 1; }
//	message HealthCheckResponse { ServingStatus status = 1; }
//
// Two fields do not justify a protobuf runtime (see doc.go).

// encodeRequest returns HealthCheckRequest{service}: field 1, wire type 2.
// proto3 omits an empty string, so the empty service is the empty message.
func encodeRequest(service string) []byte {
	if service == "" {
		return nil
	}
	b := make([]byte, 0, 1+10+len(service))
	b = append(b, 1<<3|2)
	b = appendVarint(b, uint64(len(service)))
	return append(b, service...)
}

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

var (
	errVarint    = errors.New("malformed protobuf varint")
	errTruncated = errors.New("truncated protobuf field")
)

// varint reads one base-128 varint: at most 10 bytes, the tenth holding
// only the top bit, as the protobuf wire format defines.
func varint(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		c := b[i]
		if i == 9 && c > 1 {
			return 0, 0, errVarint
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1, nil
		}
	}
	if len(b) < 10 {
		return 0, 0, errTruncated
	}
	return 0, 0, errVarint
}

// decodeResponse returns HealthCheckResponse.status. Unknown fields are
// skipped by their wire type; the last status wins, as for any proto3
// scalar; a missing status is 0 (UNKNOWN).
func decodeResponse(b []byte) (uint64, error) {
	var status uint64
	for len(b) > 0 {
		tag, n, err := varint(b)
		if err != nil {
			return 0, err
		}
		b = b[n:]
		field, wt := tag>>3, tag&7
		if field == 0 || field > 1<<29-1 {
			return 0, errors.New("invalid protobuf field number")
		}
		switch wt {
		case 0:
			v, n, err := varint(b)
			if err != nil {
				return 0, err
			}
			b = b[n:]
			if field == 1 {
				status = v
			}
			continue
		case 1, 5:
			n := 8
			if wt == 5 {
				n = 4
			}
			if len(b) < n {
				return 0, errTruncated
			}
			b = b[n:]
		case 2:
			l, n, err := varint(b)
			if err != nil {
				return 0, err
			}
			b = b[n:]
			if l > uint64(len(b)) {
				return 0, errTruncated
			}
			b = b[l:]
		default:
			// Groups (3, 4) are proto2 only and 6, 7 are undefined.
			return 0, errors.New("unsupported protobuf wire type")
		}
		if field == 1 {
			return 0, errors.New("protobuf status field has the wrong wire type")
		}
	}
	return status, nil
}
