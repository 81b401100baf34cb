% A weighted edge list: CRLF, mixed white space, a zero weight.
0 2 5
2  0	2

1 1 0
