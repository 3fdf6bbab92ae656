\* A toy spec whose TLC dump (toy.dot, made with
\*   java -cp $TLA2TOOLS_JAR tlc2.TLC -dump dot,actionlabels toy.dot Toy.tla)
\* the crosscheck tests read: strings with escapes, a record, a function
\* with a string domain (printed as a record), an interval, a function
\* with an integer domain, a parameterised action and a self-loop.
---- MODULE Toy ----
EXTENDS Naturals, Sequences, TLC
VARIABLES x, f, r, s, q
Init == x = 0 /\ f = [k \in {"a","b"} |-> 0] /\ r = [p |-> 1, o |-> "s\"q"] /\ s = 1..2 /\ q = [k \in {1,3} |-> <<>>]
Inc == x < 2 /\ x' = x + 1 /\ UNCHANGED <<f, r, s, q>>
Stay == x = 2 /\ UNCHANGED <<x, f, r, s, q>>
Flip(k) == f' = [f EXCEPT ![k] = 1 - @] /\ UNCHANGED <<x, r, s, q>>
Next == Inc \/ Stay \/ \E k \in {"a"}: Flip(k)
Spec == Init /\ [][Next]_<<x,f,r,s,q>> /\ WF_<<x,f,r,s,q>>(Inc)
Live == <>(x = 2)
====
