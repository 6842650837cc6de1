// Two elastic blocks stacked at z = 0.5, meshed independently (non-matching interface)
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 0.5};
Box(2) = {0, 0, 0.5, 1, 1, 0.5};
e = 1e-6;
lower_top() = Surface In BoundingBox{-e, -e, 0.5 - e, 1 + e, 1 + e, 0.5 + e};
MeshSize{ PointsOf{ Volume{1}; } } = 0.5;
// the interface faces meshed apart: 4 nodes on each edge below, 6 above
Transfinite Curve{ Boundary{ Surface{ lower_top(0) }; } } = 4;
Transfinite Curve{ Boundary{ Surface{ lower_top(1) }; } } = 6;
MeshSize{ PointsOf{ Volume{2}; } } = 0.3;
Physical Volume("lower") = {1};
Physical Volume("upper") = {2};
Physical Surface("lower_top") = {lower_top(0)};
Physical Surface("upper_bottom") = {lower_top(1)};
Physical Surface("upper_top") = Surface In BoundingBox{-e, -e, 1 - e, 1 + e, 1 + e, 1 + e};
Physical Surface("lower_bottom") = Surface In BoundingBox{-e, -e, -e, 1 + e, 1 + e, e};
