// Two blocks of hexahedra stacked at z = 0.5, extruded: 3 x 3 x 2 below, 4 x 4 x 2
// above (a non-matching interface)
Geometry.AutoCoherence = 0; // keep the blocks apart: their interface points coincide
Point(1) = {0, 0, 0};
l[] = Extrude {1, 0, 0} { Point{1}; Layers{3}; };
s[] = Extrude {0, 1, 0} { Line{l[1]}; Layers{3}; Recombine; };
v[] = Extrude {0, 0, 0.5} { Surface{s[1]}; Layers{2}; Recombine; };
Point(100) = {0, 0, 0.5};
l2[] = Extrude {1, 0, 0} { Point{100}; Layers{4}; };
s2[] = Extrude {0, 1, 0} { Line{l2[1]}; Layers{4}; Recombine; };
v2[] = Extrude {0, 0, 0.5} { Surface{s2[1]}; Layers{2}; Recombine; };
Physical Volume("lower") = {v[1]};
Physical Volume("upper") = {v2[1]};
Physical Surface("lower_top") = {v[0]};
Physical Surface("upper_bottom") = {s2[1]};
Physical Surface("upper_top") = {v2[0]};
Physical Surface("lower_bottom") = {s[1]};
