----------------------------- MODULE MCNextGen -----------------------------
(***************************************************************************)
(* TLC harness for NextGen.tla: the initial assignments that               *)
(* world.CheckWorld's setup leaves for each world size (the settled        *)
(* members' holdings, previous epochs at the coordinator and target        *)
(* epochs), chosen by the configs in configs/nextgen-*.cfg.                *)
(***************************************************************************)
EXTENDS NextGen

\* One topic of two partitions, one settled member (A holds T-0, T-1 at
\* epoch 2, previous epoch 1).
InitT1P2S1 == <<{<<1, 0>>, <<1, 1>>}>>
PrevT1P2S1 == <<1>>
TargetT1P2S1 == <<2>>

\* One topic of two partitions, two settled members (epoch 3: A holds T-0
\* with previous epoch 1, B holds T-1 with previous epoch 2).
InitT1P2S2 == <<{<<1, 0>>}, {<<1, 1>>}>>
PrevT1P2S2 == <<1, 2>>
TargetT1P2S2 == <<3, 3>>

\* Two topics of two partitions, two settled members (epoch 3: A holds T,
\* B holds U).
InitT2P2S2 == <<{<<1, 0>>, <<1, 1>>}, {<<2, 0>>, <<2, 1>>}>>
PrevT2P2S2 == <<1, 2>>
TargetT2P2S2 == <<3, 3>>

\* One topic of two partitions, three settled members (epoch 4: A holds
\* T-0, B T-1, C nothing, with previous epochs 1, 2, 3). C's assignment
\* was empty at epoch 3 and still is at 4, so no response since epoch 3
\* has carried one: its target epoch is 3.
InitT1P2S3 == <<{<<1, 0>>}, {<<1, 1>>}, {}>>
PrevT1P2S3 == <<1, 2, 3>>
TargetT1P2S3 == <<4, 4, 3>>
=============================================================================
