//go:build !unix

package auth

const noFollow = 0
