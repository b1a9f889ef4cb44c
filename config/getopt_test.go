package config

import (
	"reflect"
	"testing"
)

func TestExpandShort(t *testing.T) {
	specs := flagSpecs()
	cases := []struct{ in, want []string }{
		{[]string{"-sgvv", "x", "-sg"}, []string{"--subreaper", "--kill-group", "--verbose", "--verbose", "x", "-sg"}},
		{[]string{"-se", "3", "--", "-sg"}, []string{"--subreaper", "--remap-exit", "3", "--", "-sg"}},
		{[]string{"-e7", "x"}, []string{"--remap-exit", "7", "x"}},
		{[]string{"-e=7", "x"}, []string{"--remap-exit", "7", "x"}},
		{[]string{"--post-start", "-sg", "x"}, []string{"--post-start", "-sg", "x"}},
		{[]string{"-grace-period", "1s", "x"}, []string{"--grace-period", "1s", "x"}},
		{[]string{"-sz", "x"}, []string{"--subreaper", "-z", "x"}},
		{[]string{"--nope", "x"}, []string{"--nope", "x"}},
		{[]string{"--subreaper=false", "-", "y"}, []string{"--subreaper=false", "-", "y"}},
		{[]string{"-h", "-sh", "x"}, []string{"-h", "--subreaper", "-h", "x"}}, // package flag's own -h
		{[]string{"-\x00"}, []string{"-\x00"}},                                 // a flag without a letter is not the letter 0
		{[]string{"-vse"}, []string{"--verbose", "--subreaper", "--remap-exit"}},
		{[]string{"-v-", "x"}, []string{"--verbose", "--", "x"}}, // as tend always read it
	}
	for _, c := range cases {
		if got, _ := expandShort(c.in, specs); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %q want %q", c.in, got, c.want)
		}
	}
}
