----------------------------- MODULE MCClassic -----------------------------
(***************************************************************************)
(* The model TLC checks for the classic family: Classic with the constants *)
(* of a configuration in configs/classic-*.cfg. Each configuration is the  *)
(* world `rebalance check --protocol P --members M --joins J --topics T    *)
(* --partitions P ...` explores; tla/crosscheck/classic.go (classicConfigs) *)
(* builds the same Go model and compares the graphs.                       *)
(***************************************************************************)
EXTENDS Classic
=============================================================================
