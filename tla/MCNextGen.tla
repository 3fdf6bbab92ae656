----------------------------- MODULE MCNextGen -----------------------------
(***************************************************************************)
(* TLC harness for NextGen.tla: the initial assignments that               *)
(* world.CheckWorld's setup leaves for each world size (the settled        *)
(* members' holdings and previous epochs), chosen by the configs in        *)
(* configs/nextgen-*.cfg.                                                  *)
(***************************************************************************)
EXTENDS NextGen

\* One topic of two partitions, one settled member (A holds T-0, T-1 at
\* epoch 2, previous epoch 1).
InitT1P2S1 == <<{<<1, 0>>, <<1, 1>>}>>
PrevT1P2S1 == <<1>>

\* One topic of two partitions, two settled members (epoch 3: A holds T-0
\* with previous epoch 1, B holds T-1 with previous epoch 2).
InitT1P2S2 == <<{<<1, 0>>}, {<<1, 1>>}>>
PrevT1P2S2 == <<1, 2>>

\* Two topics of two partitions, two settled members (epoch 3: A holds T,
\* B holds U).
InitT2P2S2 == <<{<<1, 0>>, <<1, 1>>}, {<<2, 0>>, <<2, 1>>}>>
PrevT2P2S2 == <<1, 2>>
=============================================================================
