-- The catalogue of security questions (both dialects).  Operators may add
-- questions with SQL; ids are stable because answers refer to them.
INSERT INTO security_questions (id, question) VALUES
    (1, 'In what city were you born?'),
    (2, 'What was the name of your first pet?'),
    (3, 'What is the name of the street you grew up on?'),
    (4, 'What was the make of your first car?'),
    (5, 'What was the name of your elementary school?'),
    (6, 'What is your oldest sibling''s middle name?'),
    (7, 'In what city did your parents meet?'),
    (8, 'What was your childhood nickname?'),
    (9, 'What is the name of your favorite childhood friend?'),
    (10, 'What was the first concert you attended?'),
    (11, 'What was the name of your first employer?'),
    (12, 'In what town was your first job?'),
    (13, 'What is your maternal grandmother''s first name?'),
    (14, 'What was the title of the first book you loved?'),
    (15, 'What was the name of your favorite teacher?'),
    (16, 'What was your high school mascot?'),
    (17, 'What is the name of the hospital where you were born?'),
    (18, 'What was the destination of your first flight?');
