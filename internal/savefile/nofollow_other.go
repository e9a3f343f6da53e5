//go:build !unix

package savefile

const noFollow = 0
