% A weighted edge list: CRLF, mixed white space, a real weight.
0 2 5
2  0	1.5

1 1 0
