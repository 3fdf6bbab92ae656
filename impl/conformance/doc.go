// Package conformance holds the conformance suite that drives two group
// coordinators with the same Kafka requests in the same order and compares
// their answers: kfake's own coordinator (franz-go's in-process fake
// cluster, reached over loopback) and this project's pure coordinators
// (model/classic and model/nextgen, fed through impl/kwire).
//
// The suite lives in the package's tests; docs/conformance.md lists every
// difference found, how it is classified and the command that reproduces
// it.
package conformance
